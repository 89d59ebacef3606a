// The signed-in wallet's shares in automated markets on the Portfolio page (docs/web.md "Pages"): GET
// /portfolio/positions through the wallet session, newest market first, with each outcome's current price and what the
// shares are marked at; more pages on request. Resolved winners are also under "Payouts to claim".
import { useState } from 'preact/hooks';
import type { MarketState } from '../api/types.ts';
import { sendJson } from '../api/write.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { useI18n } from '../i18n/i18n.ts';

interface Position {
  marketAddress: string;
  question: string;
  state: MarketState;
  outcomeIndex: number;
  outcomeLabel: string;
  shares: string;
  price: string;
  markValue: string;
  collateral: { symbol: string; decimals: number };
}
interface PositionsPage {
  positions: Position[];
  nextCursor: string | null;
}

const page = (cursor: string | null, signal?: AbortSignal) =>
  sendJson<PositionsPage>('GET', `/api/agent/v1/portfolio/positions${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, { signal });

export function Positions() {
  const { t } = useI18n();
  const first = useFetch((signal) => page(null, signal), []);
  const [more, setMore] = useState<PositionsPage[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const positions = [...(first.data?.positions ?? []), ...more.flatMap((p) => p.positions)];
  const cursor = more.length > 0 ? more.at(-1)!.nextCursor : (first.data?.nextCursor ?? null);

  const loadMore = async () => {
    setBusy(true);
    setError(null);
    try {
      const next = await page(cursor);
      setMore((m) => [...m, next]);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="positions-title" data-testid="positions">
      <h2 id="positions-title">{t('portfolio.positions')}</h2>
      {first.loading && !first.data && <Loading label={t('portfolio.loading')} />}
      {!!first.error && <ErrorView error={first.error} onRetry={first.retry} />}
      {first.data && positions.length === 0 && <Empty>{t('portfolio.positions.none')}</Empty>}
      {positions.length > 0 && (
        <ul class="order-list">
          {positions.map((p) => (
            <PositionRow key={`${p.marketAddress}:${p.outcomeIndex}`} position={p} />
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" class="button button-quiet" disabled={busy} onClick={() => void loadMore()} data-testid="positions-more">
          {t('portfolio.positions.more')}
        </button>
      )}
      {!!error && <ErrorView error={error} />}
    </section>
  );
}

function PositionRow({ position: p }: { position: Position }) {
  const i18n = useI18n();
  const { t } = i18n;
  const c = p.collateral;
  return (
    <li data-testid="position">
      <span>
        <a href={`/markets/${p.marketAddress}`}>{p.question}</a> <span class={`badge badge-state badge-${p.state}`}>{t(`state.${p.state}`)}</span>
        <br />
        <strong data-testid="position-shares">
          {p.outcomeLabel} · {t('trade.position.shares', { shares: i18n.amount(p.shares, c.decimals) })}
        </strong>{' '}
        {/* A settled market pays by its outcome, not its last price: its payout is under "Payouts to claim". */}
        {p.state !== 'resolved' && p.state !== 'void' && (
          <span class="muted">
            {t('portfolio.positions.price', { price: i18n.percent(p.price) })} · {t('portfolio.positions.value', { amount: i18n.amount(p.markValue, c.decimals, c.symbol) })}
          </span>
        )}
      </span>
    </li>
  );
}
