// The market page's trade panel for the signed-in wallet (docs/web.md "Trading"): on an LMSR market a live quote, then
// prepare → approve when asked → sign → followed to CONFIRMED, and the position after; on an order-book market an
// order form with the fill allowance, the wallet's resting orders and cancel. Loaded as its own chunk; the wallet
// code (viem) only when a transaction is sent.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { Holders } from '../api/read-types.ts';
import type { Market } from '../api/types.ts';
import { newIdempotencyKey, ProblemError, sendJson } from '../api/write.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { toBaseUnits } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';
import { useSession } from '../wallet/session.ts';
import { SignInButton } from '../wallet/wallet-button.tsx';
import type { PreparedTransaction } from '../wallet/wallet.ts';

const A = '/api/agent/v1';
/** One order-book share is 10^6 base units (docs/units.md). */
const SHARE_DECIMALS = 6;

const invalid = () => new ProblemError(0, 'INVALID_PAYLOAD', 'a value in the form is not valid', {});

export function TradePanel({ market }: { market: Market }) {
  const { t } = useI18n();
  const session = useSession();
  const [signInError, setSignInError] = useState<unknown>(null);
  return (
    <section class="panel trade-panel" aria-labelledby="trade-title" data-testid="trade-panel">
      <h2 id="trade-title">{t('trade.title')}</h2>
      {session.status === 'loading' && <Loading label={t('trade.loading')} />}
      {session.status === 'signedOut' && (
        <>
          <p class="muted">{t('trade.signInFirst')}</p>
          <SignInButton onError={setSignInError} />
          {!!signInError && <ErrorView error={signInError} />}
        </>
      )}
      {session.status === 'signedIn' && !market.isTradeable && <p class="notice">{t('market.notTradeable')}</p>}
      {session.status === 'signedIn' && market.isTradeable && market.pricingModel === 'automated' && <LmsrTrade market={market} wallet={session.address} />}
      {session.status === 'signedIn' && market.pricingModel === 'ORDERBOOK' && <OrderBookTrade market={market} />}
    </section>
  );
}

interface Quote {
  amount: string;
  /** How often to ask again while the form is idle (the quote's expiry is shorter than a person's hesitation). */
  recommendedRefreshMs?: number;
  averagePrice: string;
  marginalPriceAfter: string;
  fees: { total: string };
}

interface Prepared {
  transaction: PreparedTransaction;
}

type Step = 'idle' | 'preparing' | 'approving' | 'signing' | 'confirming' | 'done';

function OutcomeSelect({ market, value, onChange, id }: { market: Market; value: number; onChange: (n: number) => void; id: string }) {
  const { t } = useI18n();
  return (
    <label class="field" for={id}>
      {t('trade.outcome')}
      <select id={id} value={value} onChange={(e) => onChange(Number(e.currentTarget.value))}>
        {market.outcomes.map((o) => (
          <option key={o.index} value={o.index}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function SideChoice({ value, onChange, label }: { value: 'buy' | 'sell'; onChange: (s: 'buy' | 'sell') => void; label: string }) {
  const { t } = useI18n();
  return (
    <div class="segmented segmented-wide" role="group" aria-label={label}>
      {(['buy', 'sell'] as const).map((s) => (
        <button key={s} type="button" aria-pressed={value === s} onClick={() => onChange(s)} data-testid={`side-${s}`}>
          {t(`market.side.${s}`)}
        </button>
      ))}
    </div>
  );
}

function LmsrTrade({ market, wallet }: { market: Market; wallet: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const c = market.collateral;
  const [outcome, setOutcome] = useState(0);
  const [side, setSide] = useState<'buy' | 'sell'>('buy');
  const [sharesText, setSharesText] = useState('10');
  const [step, setStep] = useState<Step>('idle');
  const [error, setError] = useState<unknown>(null);
  const [positionsVersion, setPositionsVersion] = useState(0);
  const shares = toBaseUnits(sharesText, c.decimals);

  // A live quote as the form changes (debounced); it changes nothing on the server.
  const [quote, setQuote] = useState<{ data: Quote | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: false });
  // Re-quote every recommendedRefreshMs while nothing is under way, so the numbers shown follow the market.
  const [requote, setRequote] = useState(0);
  const refreshMs = quote.data?.recommendedRefreshMs;
  useEffect(() => {
    if (step !== 'idle' && step !== 'done') return;
    if (!refreshMs || refreshMs <= 0) return;
    const timer = setTimeout(() => setRequote((n) => n + 1), refreshMs);
    return () => clearTimeout(timer);
  }, [quote.data, refreshMs, step]);
  useEffect(() => {
    if (!shares) {
      setQuote({ data: null, error: sharesText.trim() === '' ? null : invalid(), loading: false });
      return;
    }
    const abort = new AbortController();
    setQuote((q) => ({ ...q, loading: true }));
    const timer = setTimeout(() => {
      sendJson<Quote>('POST', `${A}/trade/quote`, { market: market.address, outcome, side, shares }, { signal: abort.signal }).then(
        (data) => setQuote({ data, error: null, loading: false }),
        (err: unknown) => !abort.signal.aborted && setQuote({ data: null, error: err, loading: false }),
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [market.address, outcome, side, shares, requote]);

  const trade = async () => {
    if (!shares) return setError(invalid());
    setError(null);
    const body = { market: market.address, outcome, side, shares };
    try {
      const w = await import('../wallet/wallet.ts');
      let prepared: Prepared | null = null;
      // At most two rounds of approvals (a sell may need the outcome token approved, then nothing else).
      for (let round = 0; prepared === null; round++) {
        setStep('preparing');
        try {
          prepared = await sendJson<Prepared>('POST', `${A}/trade/prepare`, body);
        } catch (err) {
          if (!(err instanceof ProblemError) || err.code !== 'APPROVAL_REQUIRED' || round >= 2) throw err;
          for (const approval of (err.problem.approvals ?? []) as { transaction: PreparedTransaction }[]) {
            setStep('approving');
            await w.followToConfirmed(await w.sendPrepared(approval.transaction));
          }
        }
      }
      setStep('signing');
      const hash = await w.sendPrepared(prepared.transaction);
      setStep('confirming');
      await w.followToConfirmed(hash);
      setStep('done');
      setPositionsVersion((n) => n + 1);
    } catch (err) {
      setStep('idle');
      setError(err);
    }
  };

  const busy = step !== 'idle' && step !== 'done';
  return (
    <div class="trade-form">
      <OutcomeSelect market={market} value={outcome} onChange={setOutcome} id="trade-outcome" />
      <SideChoice value={side} onChange={setSide} label={t('trade.side')} />
      <label class="field" for="trade-shares">
        {t('trade.shares')}
        <input id="trade-shares" inputMode="decimal" autoComplete="off" value={sharesText} onInput={(e) => setSharesText(e.currentTarget.value)} data-testid="trade-shares" />
      </label>
      <div class="quote" aria-live="polite" data-testid="trade-quote">
        {quote.loading && <p class="muted">{t('trade.quoting')}</p>}
        {!quote.loading && quote.data && (
          <dl class="stats">
            <div>
              <dt>{t(side === 'buy' ? 'trade.cost' : 'trade.proceeds')}</dt>
              <dd data-testid="quote-amount">{i18n.amount(quote.data.amount, c.decimals, c.symbol)}</dd>
            </div>
            <div>
              <dt>{t('trade.avgPrice')}</dt>
              <dd>{i18n.percent(quote.data.averagePrice)}</dd>
            </div>
            <div>
              <dt>{t('trade.priceAfter')}</dt>
              <dd>{i18n.percent(quote.data.marginalPriceAfter)}</dd>
            </div>
            <div>
              <dt>{t('trade.fees')}</dt>
              <dd>{i18n.amount(quote.data.fees.total, c.decimals, c.symbol)}</dd>
            </div>
          </dl>
        )}
        {!quote.loading && !!quote.error && <ErrorView error={quote.error} />}
      </div>
      <button type="button" class="button button-wide" disabled={busy || !shares} onClick={() => void trade()} data-testid="trade-submit">
        {t(side === 'buy' ? 'trade.buy' : 'trade.sell')}
      </button>
      {step !== 'idle' && (
        <p class={step === 'done' ? 'success' : 'muted'} role="status" data-testid="trade-step">
          {t(`trade.step.${step}`)}
        </p>
      )}
      {!!error && <ErrorView error={error} />}
      <Position market={market} wallet={wallet} version={positionsVersion} />
    </div>
  );
}

/** The wallet's shares per outcome, as the market's holders read says (it follows the chain within seconds). */
function Position({ market, wallet, version }: { market: Market; wallet: string; version: number }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [poll, setPoll] = useState(0);
  const holders = useFetch((signal) => getJson<Holders>(`${A}/discover/markets/${market.address}/holders`, {}, signal).then((a) => a.body), [market.address, version, poll]);
  const mine = (holders.data?.holders ?? [])
    .map((o) => ({ label: o.label, shares: o.top.find((h) => h.address.toLowerCase() === wallet.toLowerCase())?.shares ?? '0' }))
    .filter((o) => o.shares !== '0');
  // After a trade the indexer may not have read its block yet: look again, a few times, until the position shows.
  useEffect(() => {
    if (version === 0 || holders.loading || poll >= 30) return;
    const timer = setTimeout(() => setPoll((n) => n + 1), 1000);
    return () => clearTimeout(timer);
  }, [version, holders.data, holders.loading]);
  return (
    <div class="position" data-testid="position">
      <h3>{t('trade.position')}</h3>
      {holders.loading && !holders.data && <Loading label={t('trade.loading')} />}
      {!!holders.error && <ErrorView error={holders.error} onRetry={holders.retry} />}
      {holders.data && mine.length === 0 && <p class="muted">{t('trade.position.none')}</p>}
      {mine.length > 0 && (
        <ul class="outcome-list">
          {mine.map((o) => (
            <li key={o.label}>
              <span>{o.label}</span>
              <strong data-testid="position-shares">{t('trade.position.shares', { shares: i18n.amount(o.shares, market.collateral.decimals) })}</strong>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

interface FillAllowance {
  fills: { enabled: boolean; remaining: number; resetsOn: string } | null;
}

interface Order {
  id: string;
  outcome: number;
  action: 'buy' | 'sell';
  price: string;
  shares: string;
  remaining: string;
  status: string;
}

function OrderBookTrade({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [outcome, setOutcome] = useState(0);
  const [action, setAction] = useState<'buy' | 'sell'>('buy');
  const [priceText, setPriceText] = useState('0.50');
  const [sharesText, setSharesText] = useState('1');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [placed, setPlaced] = useState<Order | null>(null);
  const [version, setVersion] = useState(0);
  const allowance = useFetch((signal) => sendJson<FillAllowance>('GET', `${A}/orderbook/fill-allowance`, undefined, { signal }), [version]);
  const orders = useFetch(
    (signal) => sendJson<{ orders: Order[] }>('GET', `${A}/orderbook/orders?market=${market.address}&status=resting`, undefined, { signal }).then((a) => a.orders),
    [market.address, version],
  );

  const place = async () => {
    const shares = toBaseUnits(sharesText, SHARE_DECIMALS);
    const price = priceText.trim();
    if (!shares || !/^0\.\d{1,2}$/.test(price)) return setError(invalid());
    setBusy(true);
    setError(null);
    try {
      const order = await sendJson<Order>('POST', `${A}/orderbook/place-order`, { market: market.address, outcome, action, price, shares }, { idempotencyKey: newIdempotencyKey() });
      setPlaced(order);
      setVersion((n) => n + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const cancel = async (orderId: string) => {
    setError(null);
    try {
      await sendJson<Order>('POST', `${A}/orderbook/cancel-order`, { orderId }, { idempotencyKey: newIdempotencyKey() });
      setVersion((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  const fills = allowance.data?.fills;
  const label = (o: number) => market.outcomes[o]?.label ?? String(o + 1);
  return (
    <div class="trade-form">
      <p class="muted" data-testid="fill-allowance">
        {allowance.loading && !allowance.data && t('trade.loading')}
        {fills && (fills.enabled ? t('orders.fillsLeft', { n: i18n.number(fills.remaining), date: i18n.dateTime(fills.resetsOn) }) : t('orders.fillsUnlimited'))}
      </p>
      {!!allowance.error && <ErrorView error={allowance.error} onRetry={allowance.retry} />}
      {market.isTradeable ? (
        <>
          <OutcomeSelect market={market} value={outcome} onChange={setOutcome} id="order-outcome" />
          <SideChoice value={action} onChange={setAction} label={t('trade.side')} />
          <label class="field" for="order-price">
            {t('orders.price')}
            <input id="order-price" inputMode="decimal" autoComplete="off" value={priceText} onInput={(e) => setPriceText(e.currentTarget.value)} data-testid="order-price" />
          </label>
          <label class="field" for="order-shares">
            {t('trade.shares')}
            <input id="order-shares" inputMode="decimal" autoComplete="off" value={sharesText} onInput={(e) => setSharesText(e.currentTarget.value)} data-testid="order-shares" />
          </label>
          <button type="button" class="button button-wide" disabled={busy} onClick={() => void place()} data-testid="order-submit">
            {t('orders.place')}
          </button>
          {placed && (
            <p class="success" role="status" data-testid="order-placed">
              {t(`orders.status.${placed.status === 'resting' || placed.status === 'filled' ? placed.status : 'other'}`)}
            </p>
          )}
        </>
      ) : (
        <p class="notice">{t('market.notTradeable')}</p>
      )}
      {!!error && <ErrorView error={error} />}
      <h3>{t('orders.open')}</h3>
      {orders.loading && !orders.data && <Loading label={t('trade.loading')} />}
      {!!orders.error && <ErrorView error={orders.error} onRetry={orders.retry} />}
      {orders.data && orders.data.length === 0 && <Empty>{t('orders.none')}</Empty>}
      {orders.data && orders.data.length > 0 && (
        <ul class="order-list" data-testid="open-orders">
          {orders.data.map((o) => (
            <li key={o.id} data-testid="open-order">
              <span>
                {t(`market.side.${o.action}`)} {label(o.outcome)} · {i18n.percent(o.price)} · {i18n.amount(o.remaining, SHARE_DECIMALS)}
              </span>
              <button type="button" class="button button-quiet" onClick={() => void cancel(o.id)} data-testid="order-cancel">
                {t('orders.cancel')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
