// Other listed markets of the same category and chain (GET /api/agent/v1/discover/markets/{address}/related).
import { getJson } from '../api/client.ts';
import type { Market, MarketListings } from '../api/types.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { useI18n } from '../i18n/i18n.ts';

const SHOWN = 5;

export function RelatedMarkets({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const related = useFetch(
    (signal) => getJson<MarketListings>(`/api/agent/v1/discover/markets/${market.address}/related`, {}, signal).then((a) => a.body.markets.slice(0, SHOWN)),
    [market.address],
  );
  return (
    <section class="panel" aria-labelledby="related-title" data-testid="related">
      <h2 id="related-title">{t('market.related')}</h2>
      {related.loading && !related.data && <Loading label={t('market.loading')} />}
      {!!related.error && <ErrorView error={related.error} onRetry={related.retry} />}
      {related.data && related.data.length === 0 && <Empty>{t('market.related.empty')}</Empty>}
      {related.data && related.data.length > 0 && (
        <ul class="related-list">
          {related.data.map((m) => (
            <li key={m.address}>
              <a href={`/markets/${m.address.toLowerCase()}`}>{m.question}</a>
              <span class="muted">
                {m.outcomes[0]?.label} {m.outcomes[0] ? i18n.percent(m.outcomes[0].price) : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
