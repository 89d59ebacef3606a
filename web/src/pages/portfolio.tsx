// The signed-in wallet's portfolio (/portfolio; docs/web.md "Pages"), its own chunk: payouts it can claim with one
// click (the protocol sends and pays gas; the claim is followed to CONFIRMED), its creator funds and bonds with collect,
// its open orders, and its play-money ledger balances (outcome shares whole, as the ledger keeps them), each checked in the browser against the contract's
// ledgerRoot() (the proof code is a chunk of its own, loaded here only).
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { MarketDetail } from '../api/types.ts';
import { newIdempotencyKey, sendJson } from '../api/write.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';
import type { LedgerProof, ProofCheck } from '../wallet/ledger-proof.ts';
import { useSession } from '../wallet/session.ts';
import { SignInButton } from '../wallet/wallet-button.tsx';
import { Positions } from './portfolio-positions.tsx';

const A = '/api/agent/v1';

export function PortfolioPage() {
  const { t } = useI18n();
  const session = useSession();
  const [signInError, setSignInError] = useState<unknown>(null);
  return (
    <div class="page portfolio">
      <h1>{t('portfolio.title')}</h1>
      {session.status === 'loading' && <Loading label={t('portfolio.loading')} />}
      {session.status === 'signedOut' && (
        <section class="panel">
          <p class="muted">{t('portfolio.signInFirst')}</p>
          <SignInButton onError={setSignInError} />
          {!!signInError && <ErrorView error={signInError} />}
        </section>
      )}
      {session.status === 'signedIn' && (
        <div class="portfolio-grid" key={session.address}>
          <p class="muted mono" data-testid="portfolio-wallet">
            {session.address}
          </p>
          <Positions />
          <Claims />
          <CreatorFunds />
          <OpenOrders />
          <Ledger address={session.address} />
        </div>
      )}
    </div>
  );
}

interface Payout {
  chainId: number;
  marketAddress: string;
  amount: string;
  eligibleNow: boolean;
  eligibleAt: string | null;
  status: 'claimable' | 'claimed';
}
interface Settlement {
  state: 'SETTLED' | 'SKIPPED';
  marketAddress: string;
  amount: string;
  txHash?: `0x${string}`;
  skippedReason?: string;
}

/** The market behind an address, for its question and collateral (a visitor-readable read). */
function useMarket(address: string) {
  return useFetch((signal) => getJson<MarketDetail>(`${A}/discover/markets/${address}`, {}, signal).then((a) => a.body.market), [address]);
}

/**
 * A write started from a panel's button: `busy` while it runs, its error kept to show, and `version` moved on once it
 * succeeded (the panel's read depends on it, so it is asked again).
 */
function useWrite() {
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (write: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await write();
      setVersion((n) => n + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { version, busy, error, run };
}

function Claims() {
  const i18n = useI18n();
  const { t } = i18n;
  const { version, busy, error, run } = useWrite();
  const [settled, setSettled] = useState<Settlement[]>([]);
  const list = useFetch((signal) => sendJson<{ payouts: Payout[] }>('GET', `${A}/claims/available`, undefined, { signal }).then((a) => a.payouts), [version]);
  const claimable = (list.data ?? []).filter((p) => p.status === 'claimable');
  const ready = claimable.filter((p) => p.eligibleNow);

  /** One click: the protocol redeems every named market in one transaction, followed here to CONFIRMED. */
  const claim = (payouts: Payout[]) =>
    run(async () => {
      const answer = await sendJson<{ claims: Settlement[] }>('POST', `${A}/claims/batch`, { markets: payouts.map((p) => ({ chainId: p.chainId, marketAddress: p.marketAddress })) }, { idempotencyKey: newIdempotencyKey() });
      const hashes = [...new Set(answer.claims.flatMap((c) => (c.txHash ? [c.txHash] : [])))];
      if (hashes.length > 0) {
        const w = await import('../wallet/wallet.ts');
        for (const h of hashes) await w.followToConfirmed(h);
      }
      setSettled(answer.claims);
    });

  return (
    <section class="panel" aria-labelledby="claims-title" data-testid="claims">
      <div class="panel-head">
        <h2 id="claims-title">{t('portfolio.claims')}</h2>
        {ready.length > 1 && (
          <button type="button" class="button button-primary" disabled={busy} onClick={() => void claim(ready)} data-testid="claim-all">
            {t('portfolio.claimAll', { count: ready.length })}
          </button>
        )}
      </div>
      {list.loading && !list.data && <Loading label={t('portfolio.loading')} />}
      {!!list.error && <ErrorView error={list.error} onRetry={list.retry} />}
      {list.data && claimable.length === 0 && settled.length === 0 && <Empty>{t('portfolio.claims.none')}</Empty>}
      {claimable.length > 0 && (
        <ul class="order-list">
          {claimable.map((p) => (
            <PayoutRow key={p.marketAddress} payout={p} busy={busy} onClaim={() => void claim([p])} />
          ))}
        </ul>
      )}
      {settled.length > 0 && (
        <ul class="order-list" data-testid="claim-results">
          {settled.map((c) => (
            <SettlementRow key={c.marketAddress} settlement={c} />
          ))}
        </ul>
      )}
      {!!error && <ErrorView error={error} />}
    </section>
  );
}

/** A link to the market, named by its question once read (the caller's read when it has one: one read per row). */
function MarketName({ address, question }: { address: string; question?: string }) {
  return question !== undefined ? <a href={`/markets/${address}`}>{question}</a> : <MarketLink address={address} />;
}

function MarketLink({ address }: { address: string }) {
  const market = useMarket(address);
  return <a href={`/markets/${address}`}>{market.data?.question ?? shortAddress(address)}</a>;
}

function PayoutRow({ payout: p, busy, onClaim }: { payout: Payout; busy: boolean; onClaim: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const market = useMarket(p.marketAddress);
  const c = market.data?.collateral;
  return (
    <li data-testid="payout">
      <span>
        <MarketName address={p.marketAddress} question={market.data?.question ?? shortAddress(p.marketAddress)} />
        <br />
        <strong data-testid="payout-amount">{c ? i18n.amount(p.amount, c.decimals, c.symbol) : '…'}</strong>{' '}
        {!p.eligibleNow && p.eligibleAt && <span class="muted">{t('portfolio.claims.eligibleAt', { time: i18n.dateTime(p.eligibleAt) })}</span>}
      </span>
      {p.eligibleNow && (
        <button type="button" class="button" disabled={busy || !c} onClick={onClaim} data-testid="claim">
          {t('portfolio.claim')}
        </button>
      )}
    </li>
  );
}

function SettlementRow({ settlement: s }: { settlement: Settlement }) {
  const i18n = useI18n();
  const { t } = i18n;
  const market = useMarket(s.marketAddress).data;
  const c = market?.collateral;
  return (
    <li data-testid="claim-result">
      <MarketName address={s.marketAddress} question={market?.question ?? shortAddress(s.marketAddress)} />
      <span class={s.state === 'SETTLED' ? 'success' : 'muted'} role="status">
        {s.state === 'SETTLED' ? t('portfolio.claimed', { amount: c ? i18n.amount(s.amount, c.decimals, c.symbol) : '…' }) : t('portfolio.claimSkipped')}
      </span>
    </li>
  );
}

interface Funds {
  creatorFunds: {
    markets: {
      marketAddress: string;
      marketTitle: string;
      marketBalance: { status: string; amount: string; symbol: string; decimals: number };
      bond: { displayStatus: 'ready' | 'pending' | 'returned' | 'unavailable' | 'none' | 'syncing'; amountWei: string };
    }[];
    summary: { collectableCount: number };
  };
}
interface Collection {
  marketAddress: string;
  marketBalance: { state: string; amount: string };
  bond: { state: string };
}

function CreatorFunds() {
  const i18n = useI18n();
  const { t } = i18n;
  const { version, busy, error, run } = useWrite();
  const [collected, setCollected] = useState<Collection[] | null>(null);
  const funds = useFetch((signal) => sendJson<Funds>('GET', `${A}/trade/creator-funds`, undefined, { signal }), [version]);
  // The read is the indexer's projection, a moment behind the chain: what this page just collected shows as collected.
  const done = new Map((collected ?? []).map((c) => [c.marketAddress.toLowerCase(), c]));
  const markets = (funds.data?.creatorFunds.markets ?? []).map((m) => {
    const c = done.get(m.marketAddress.toLowerCase());
    if (!c) return m;
    return {
      ...m,
      marketBalance: c.marketBalance.state === 'COLLECTED' ? { ...m.marketBalance, status: 'collected', amount: '0' } : m.marketBalance,
      bond: c.bond.state === 'COLLECTED' ? { ...m.bond, displayStatus: 'returned' as const } : m.bond,
    };
  });
  const collectable = markets.some((m) => m.marketBalance.status === 'claimable' || m.bond.displayStatus === 'ready');

  const collect = () =>
    run(async () => {
      const answer = await sendJson<{ collections: Collection[] }>('POST', `${A}/trade/creator-funds/collect`, {}, { idempotencyKey: newIdempotencyKey() });
      setCollected(answer.collections);
    });

  return (
    <section class="panel" aria-labelledby="funds-title" data-testid="creator-funds">
      <div class="panel-head">
        <h2 id="funds-title">{t('portfolio.creatorFunds')}</h2>
        {(funds.data?.creatorFunds.summary.collectableCount ?? 0) > 0 && collectable && (
          <button type="button" class="button button-primary" disabled={busy} onClick={() => void collect()} data-testid="collect">
            {t('portfolio.collect')}
          </button>
        )}
      </div>
      {funds.loading && !funds.data && <Loading label={t('portfolio.loading')} />}
      {!!funds.error && <ErrorView error={funds.error} onRetry={funds.retry} />}
      {funds.data && markets.length === 0 && <Empty>{t('portfolio.creatorFunds.none')}</Empty>}
      {markets.length > 0 && (
        <ul class="order-list">
          {markets.map((m) => (
            <li key={m.marketAddress} data-testid="creator-market">
              <a href={`/markets/${m.marketAddress}`}>{m.marketTitle}</a>
              <span>
                {t('portfolio.fees', { amount: i18n.amount(m.marketBalance.amount, m.marketBalance.decimals, m.marketBalance.symbol) })} ·{' '}
                {t('portfolio.bond', { amount: i18n.amount(m.bond.amountWei, 18, 'PM'), status: t(`portfolio.bond.${m.bond.displayStatus}`) })}
              </span>
            </li>
          ))}
        </ul>
      )}
      {collected && (
        <p class="success" role="status" data-testid="collected">
          {t('portfolio.collected', { count: collected.filter((c) => c.marketBalance.state === 'COLLECTED' || c.bond.state === 'COLLECTED').length })}
        </p>
      )}
      {!!error && <ErrorView error={error} />}
    </section>
  );
}

interface Order {
  id: string;
  market: string;
  outcome: number;
  action: 'buy' | 'sell';
  price: string;
  remaining: string;
}

function OpenOrders() {
  const i18n = useI18n();
  const { t } = i18n;
  const orders = useFetch((signal) => sendJson<{ orders: Order[] }>('GET', `${A}/orderbook/orders?status=resting`, undefined, { signal }).then((a) => a.orders), []);
  return (
    <section class="panel" aria-labelledby="orders-title" data-testid="portfolio-orders">
      <h2 id="orders-title">{t('portfolio.orders')}</h2>
      {orders.loading && !orders.data && <Loading label={t('portfolio.loading')} />}
      {!!orders.error && <ErrorView error={orders.error} onRetry={orders.retry} />}
      {orders.data && orders.data.length === 0 && <Empty>{t('portfolio.orders.none')}</Empty>}
      {orders.data && orders.data.length > 0 && (
        <ul class="order-list">
          {orders.data.map((o) => (
            <li key={o.id}>
              <MarketName address={o.market} />
              <span>
                {t(o.action === 'buy' ? 'trade.buy' : 'trade.sell')} · {i18n.percent(o.price)} · {t('trade.position.shares', { shares: i18n.amount(o.remaining, 6) })}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

type Check = { status: 'checking' } | ProofCheck | { status: 'failed'; error: unknown };

function Ledger({ address }: { address: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [version, setVersion] = useState(0);
  const proof = useFetch(
    (signal) => getJson<LedgerProof>(`${A}/ledger/proof/${address.toLowerCase()}`, {}, signal).then((a) => a.body),
    [address, version],
  );
  const [check, setCheck] = useState<Check | null>(null);
  // The check runs as soon as the proof is here, in its own chunk (viem's keccak), against the wallet's chain.
  useEffect(() => {
    if (!proof.data) return;
    let live = true;
    setCheck({ status: 'checking' });
    import('../wallet/ledger-proof.ts')
      .then((m) => m.checkLedgerProof(proof.data!))
      .then(
        (c) => live && setCheck(c),
        (error: unknown) => live && setCheck({ status: 'failed', error }),
      );
    return () => {
      live = false;
    };
  }, [proof.data]);
  const balances = proof.data?.balances ?? [];
  return (
    <section class="panel" aria-labelledby="ledger-title" data-testid="ledger">
      <div class="panel-head">
        <h2 id="ledger-title">{t('portfolio.ledger')}</h2>
        <button type="button" class="button button-quiet" onClick={() => setVersion((n) => n + 1)} data-testid="ledger-recheck">
          {t('portfolio.ledger.recheck')}
        </button>
      </div>
      {proof.loading && !proof.data && <Loading label={t('portfolio.loading')} />}
      {!!proof.error && <ErrorView error={proof.error} onRetry={proof.retry} />}
      {proof.data && balances.length === 0 && <Empty>{t('portfolio.ledger.none')}</Empty>}
      {balances.length > 0 && (
        <ul class="order-list">
          {balances.map((b) => (
            <li key={b.assetId} data-testid="ledger-balance">
              <span>{b.asset.kind === 'collateral' ? t('portfolio.ledger.playMoney') : t('portfolio.ledger.outcome', { market: b.asset.marketId, side: b.asset.side === 0 ? t('portfolio.ledger.yes') : t('portfolio.ledger.no') })}</span>
              <strong>{b.asset.kind === 'collateral' ? i18n.amount(b.balance, b.asset.decimals, 'PLAY') : t('trade.position.shares', { shares: i18n.number(b.balance) })}</strong>
            </li>
          ))}
        </ul>
      )}
      {proof.data && check && <ProofStatus check={check} batch={proof.data.batchNonce} />}
    </section>
  );
}

function ProofStatus({ check, batch }: { check: Check; batch: number }) {
  const { t } = useI18n();
  if (check.status === 'failed') return <ErrorView error={check.error} />;
  const words: Record<Exclude<Check['status'], 'failed'>, string> = {
    checking: t('portfolio.proof.checking'),
    verified: t('portfolio.proof.verified', { batch }),
    badProof: t('portfolio.proof.badProof'),
    rootMismatch: t('portfolio.proof.rootMismatch'),
    noWallet: t('portfolio.proof.noWallet'),
    wrongChain: t('portfolio.proof.wrongChain'),
  };
  return (
    <p class={check.status === 'verified' ? 'success' : check.status === 'checking' ? 'muted' : 'notice'} role="status" data-testid="proof-check" data-status={check.status}>
      {words[check.status]}
    </p>
  );
}
