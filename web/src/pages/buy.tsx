// Buy PM (docs/web.md "Buying PM", docs/economy.md): the terms (GET /api/v1/economy/purchase-terms), a card bundle
// through the payment provider's checkout (POST …/checkout-session, then the provider's page, then back here with
// ?purchase=<sessionId>: GET …/purchase-status/{sessionId}), and USDC by permit with the gas paid by the server
// (POST …/relay-purchase, the permit signed in the wallet). The signed-in wallet is the buyer; no key in the page.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import { newIdempotencyKey, ProblemError, sendJson } from '../api/write.ts';
import { ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { toBaseUnits } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';
import type { MessageKey } from '../i18n/messages/en-US.ts';
import { useSession } from '../wallet/session.ts';
import { SignInButton } from '../wallet/wallet-button.tsx';

const E = '/api/v1/economy';
type Hex = `0x${string}`;
type Unavailable = 'NOT_CONFIGURED' | 'SALE_NOT_DEPLOYED' | 'SALE_PAUSED' | 'SALE_SOLD_OUT' | null;

interface Terms {
  token: { symbol: 'PM'; address: Hex; decimals: number };
  paymentToken: { symbol: 'USDC'; address: Hex; decimals: number };
  price: { usdcPerPm: string; usdPerPm: string; pmPerUsd: string };
  methods: {
    card: { available: boolean; unavailableReason: Unavailable; bundles: { usd: number; pmWei: string }[]; cap: { usd: number; periodHours: number } };
    relay: {
      available: boolean;
      unavailableReason: Unavailable;
      minPaymentAmount: string;
      permit: { spender: Hex | null; domain: { name: string; version: string; chainId: number; verifyingContract: Hex } | null };
    };
  };
}

interface CardPurchase {
  sessionId: string;
  state: 'open' | 'paid' | 'delivered' | 'expired' | 'failed';
  checkoutUrl: string;
  usd: number;
  pmWei: string;
}

interface RelayPurchase {
  txHash: Hex;
  pmReceived: string;
}

/** The sale's reasons (a refusal's `reason`, or a method's unavailableReason) that have words of their own. */
const REASONS = ['SALE_PAUSED', 'SALE_SOLD_OUT', 'SALE_NOT_DEPLOYED', 'SALE_INVENTORY_SHORT', 'PROVIDER_UNAVAILABLE', 'CARD_NOT_CONFIGURED'] as const;

/** Words for a refusal: the reason a 503 carries when it names one, else the problem code's. */
function useBuyError(): (err: unknown) => string {
  const i18n = useI18n();
  return (err) => {
    const reason = err instanceof ProblemError ? err.problem.reason : undefined;
    return typeof reason === 'string' && (REASONS as readonly string[]).includes(reason) ? i18n.t(`error.${reason}` as MessageKey) : i18n.error(err);
  };
}

function Refusal({ error }: { error: unknown }) {
  const words = useBuyError();
  return (
    <p class="status status-error" role="alert">
      {words(error)}
    </p>
  );
}

/** PM base units a payment buys: floor(payment × 10^decimals ÷ usdcPerPm), the sale contract's own rule. */
const pmFor = (payment: bigint, terms: Terms): bigint => (payment * 10n ** BigInt(terms.token.decimals)) / BigInt(terms.price.usdcPerPm);

export function BuyPage({ search }: { search: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const session = useSession();
  const purchase = new URLSearchParams(search).get('purchase');
  const terms = useFetch((signal) => getJson<Terms>(`${E}/purchase-terms`, {}, signal).then((a) => a.body), []);
  const [signInError, setSignInError] = useState<unknown>(null);
  const [balanceVersion, setBalanceVersion] = useState(0);
  useEffect(() => {
    document.title = `${t('buy.title')} · ${t('app.name')}`;
  }, [t]);
  const d = terms.data;
  return (
    <div class="page buy-page">
      <h1>{t('buy.title')}</h1>
      {purchase && <CardStatus sessionId={purchase} pmDecimals={d?.token.decimals ?? 18} onDelivered={() => setBalanceVersion((n) => n + 1)} />}
      {terms.loading && !d && <Loading label={t('buy.loading')} />}
      {!!terms.error && <ErrorView error={terms.error} onRetry={terms.retry} />}
      {d && (
        <p class="lead" data-testid="buy-price">
          {t('buy.price', { pm: i18n.number(d.price.pmPerUsd), usd: d.price.usdPerPm })}
        </p>
      )}
      {session.status === 'signedOut' && (
        <section class="panel">
          <p class="muted">{t('buy.signInFirst')}</p>
          <SignInButton onError={setSignInError} />
          {!!signInError && <ErrorView error={signInError} />}
        </section>
      )}
      {d && session.status === 'signedIn' && (
        <div class="buy-methods">
          <Balance terms={d} wallet={session.address as Hex} version={balanceVersion} />
          <CardBuy terms={d} />
          <RelayBuy terms={d} onBought={() => setBalanceVersion((n) => n + 1)} />
        </div>
      )}
    </div>
  );
}

function Balance({ terms, wallet, version }: { terms: Terms; wallet: Hex; version: number }) {
  const i18n = useI18n();
  const balance = useFetch(() => import('../wallet/wallet.ts').then((w) => w.tokenBalance(terms.token.address, wallet)), [wallet, version]);
  return (
    <section class="panel" aria-labelledby="balance-title">
      <h2 id="balance-title">{i18n.t('buy.balance')}</h2>
      {balance.data !== null && (
        <p class="big-number" data-testid="pm-balance">
          {i18n.amount(balance.data.toString(), terms.token.decimals, 'PM')}
        </p>
      )}
      {balance.loading && balance.data === null && <Loading label={i18n.t('buy.loading')} />}
      {!!balance.error && <ErrorView error={balance.error} onRetry={balance.retry} />}
    </section>
  );
}

function CardBuy({ terms }: { terms: Terms }) {
  const i18n = useI18n();
  const { t } = i18n;
  const card = terms.methods.card;
  const [usd, setUsd] = useState<number | null>(card.bundles[0]?.usd ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const dollars = (n: number) => i18n.usdMicro(`${n}000000`);
  const pay = async () => {
    if (usd === null) return;
    setBusy(true);
    setError(null);
    try {
      const opened = await sendJson<CardPurchase>('POST', `${E}/checkout-session`, { usd }, { idempotencyKey: newIdempotencyKey() });
      // The provider's hosted page; it sends the buyer back to /buy?purchase=<sessionId>.
      location.assign(opened.checkoutUrl);
    } catch (err) {
      setBusy(false);
      setError(err);
    }
  };
  return (
    <section class="panel" aria-labelledby="card-title" data-testid="buy-card">
      <h2 id="card-title">{t('buy.card.title')}</h2>
      {!card.available ? (
        <p class="notice" data-testid="card-unavailable">
          {card.unavailableReason === 'NOT_CONFIGURED' || card.unavailableReason === null ? t('buy.card.notConfigured') : t(`error.${card.unavailableReason}`)}
        </p>
      ) : (
        <>
          <div class="segmented" role="group" aria-label={t('buy.card.bundles')}>
            {card.bundles.map((b) => (
              <button key={b.usd} type="button" aria-pressed={usd === b.usd} onClick={() => setUsd(b.usd)} data-testid={`bundle-${b.usd}`}>
                {t('buy.card.bundle', { usd: dollars(b.usd), pm: i18n.amount(b.pmWei, terms.token.decimals) })}
              </button>
            ))}
          </div>
          <p class="muted">{t('buy.card.cap', { usd: dollars(card.cap.usd), hours: card.cap.periodHours })}</p>
          <button type="button" class="button button-primary" onClick={() => void pay()} disabled={busy || usd === null} data-testid="card-pay">
            {busy ? t('buy.card.redirecting') : t('buy.card.pay', { usd: dollars(usd ?? 0) })}
          </button>
          {!!error && <Refusal error={error} />}
        </>
      )}
    </section>
  );
}

type RelayStep = 'idle' | 'signing' | 'buying' | 'done';

function RelayBuy({ terms, onBought }: { terms: Terms; onBought: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const relay = terms.methods.relay;
  const usdc = terms.paymentToken;
  const min = BigInt(relay.minPaymentAmount);
  const [text, setText] = useState(() => (min > 5_000_000n ? '' : '5'));
  const [step, setStep] = useState<RelayStep>('idle');
  const [error, setError] = useState<unknown>(null);
  const [bought, setBought] = useState<RelayPurchase | null>(null);
  const units = toBaseUnits(text, usdc.decimals);
  const payment = units === null ? null : BigInt(units);
  const pmOut = payment === null ? null : pmFor(payment, terms);
  const buy = async () => {
    const { domain, spender } = relay.permit;
    if (payment === null || pmOut === null || !domain || !spender) return setError(new ProblemError(0, 'INVALID_PAYLOAD', 'no amount', {}));
    if (payment < min) return setError(new ProblemError(0, 'AMOUNT_BELOW_MINIMUM', 'below the minimum', {}));
    setError(null);
    setBought(null);
    try {
      const w = await import('../wallet/wallet.ts');
      // The permit's deadline from the server's clock: a wrong device clock does not make it stale.
      const { serverTime } = await sendJson<{ serverTime: number }>('GET', '/api/agent/v1/time');
      const deadline = Math.floor(serverTime / 1000) + 30 * 60;
      setStep('signing');
      const signature = await w.signPermit({ domain, spender, value: payment, deadline });
      setStep('buying');
      const body = { paymentAmount: payment.toString(), minPmOut: pmOut.toString(), deadline, ...signature };
      const result = await sendJson<RelayPurchase>('POST', `${E}/relay-purchase`, body, { idempotencyKey: newIdempotencyKey() });
      setBought(result);
      setStep('done');
      onBought();
    } catch (err) {
      setStep('idle');
      setError(err);
    }
  };
  const busy = step === 'signing' || step === 'buying';
  return (
    <section class="panel" aria-labelledby="relay-title" data-testid="buy-relay">
      <h2 id="relay-title">{t('buy.relay.title')}</h2>
      {!relay.available ? (
        <p class="notice">{relay.unavailableReason && relay.unavailableReason !== 'NOT_CONFIGURED' ? t(`error.${relay.unavailableReason}`) : t('error.SALE_NOT_DEPLOYED')}</p>
      ) : (
        <>
          <p class="muted">{t('buy.relay.explain')}</p>
          <label class="field" for="relay-amount">
            {t('buy.relay.amount')}
            <input id="relay-amount" inputMode="decimal" autocomplete="off" value={text} onInput={(e) => setText(e.currentTarget.value)} data-testid="relay-amount" />
          </label>
          <p class="muted">{t('buy.relay.min', { amount: i18n.amount(relay.minPaymentAmount, usdc.decimals, 'USDC') })}</p>
          {pmOut !== null && (
            <p data-testid="relay-quote">
              {t('buy.relay.youGet', { pm: i18n.amount(pmOut.toString(), terms.token.decimals, 'PM') })}
            </p>
          )}
          <button type="button" class="button button-primary" onClick={() => void buy()} disabled={busy || payment === null} data-testid="relay-submit">
            {t('buy.relay.submit')}
          </button>
          <p role="status" aria-live="polite" data-testid="relay-step">
            {step === 'signing' && t('buy.relay.signing')}
            {step === 'buying' && t('buy.relay.buying')}
            {step === 'done' && bought && t('buy.relay.done', { pm: i18n.amount(bought.pmReceived, terms.token.decimals, 'PM') })}
          </p>
          {!!error && <Refusal error={error} />}
        </>
      )}
    </section>
  );
}

const STATUS_POLL_MS = 2000;

/** The card purchase the provider sent the buyer back with; read again while it is open or paid. */
function CardStatus({ sessionId, pmDecimals, onDelivered }: { sessionId: string; pmDecimals: number; onDelivered: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const session = useSession();
  const [tick, setTick] = useState(0);
  const signedIn = session.status === 'signedIn';
  const cancelled = sessionId === 'cancelled';
  const status = useFetch(
    (signal) => (signedIn && !cancelled ? getJson<CardPurchase>(`${E}/purchase-status/${encodeURIComponent(sessionId)}`, {}, signal).then((a) => a.body) : Promise.resolve(null)),
    [sessionId, signedIn, tick],
  );
  const state = status.data?.state;
  useEffect(() => {
    if (state === 'delivered') onDelivered();
  }, [state]);
  useEffect(() => {
    if (state !== 'open' && state !== 'paid') return;
    const timer = setTimeout(() => setTick((n) => n + 1), STATUS_POLL_MS);
    return () => clearTimeout(timer);
  }, [status.data]);
  return (
    <section class="panel" aria-labelledby="status-title" data-testid="purchase-status">
      <h2 id="status-title">{t('buy.status.title')}</h2>
      {cancelled && <p>{t('buy.status.cancelled')}</p>}
      {!cancelled && !signedIn && session.status !== 'loading' && <p class="muted">{t('buy.signInFirst')}</p>}
      {status.loading && !status.data && signedIn && <Loading label={t('buy.loading')} />}
      {!!status.error && <ErrorView error={status.error} onRetry={status.retry} />}
      {status.data && (
        <>
          <p data-testid="purchase-state">{t(`buy.status.${status.data.state}`)}</p>
          <p class="muted">{t('buy.status.amount', { usd: i18n.usdMicro(`${status.data.usd}000000`), pm: i18n.amount(status.data.pmWei, pmDecimals, 'PM') })}</p>
        </>
      )}
    </section>
  );
}
