// Discover: markets worth a look now, each with its thesis written in the reader's locale
// (GET /api/v1/discovery/theses; the chain from GET /api/agent/v1/discover/chains).
import { useEffect } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { Chains, Theses, Thesis } from '../api/read-types.ts';
import { CardStats, Chances } from '../components/market-card.tsx';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { useI18n } from '../i18n/i18n.ts';
import type { MessageKey } from '../i18n/messages/en-US.ts';

/** The kinds of reason the server gives (docs/theses.md "Reasons"); one outside the list shows no tag. */
const KINDS = ['price_move', 'volume', 'closing_soon', 'disagreement', 'forecast', 'new_market'];

export function DiscoverPage() {
  const i18n = useI18n();
  const { t } = i18n;
  const theses = useFetch(
    async (signal) => {
      const { chains } = (await getJson<Chains>('/api/agent/v1/discover/chains', {}, signal)).body;
      const chain = chains.find((c) => c.enabled) ?? chains[0];
      if (!chain) return null;
      return (await getJson<Theses>('/api/v1/discovery/theses', { chainId: chain.chainId, locale: i18n.locale }, signal)).body;
    },
    [i18n.locale],
  );
  useEffect(() => {
    document.title = `${t('discover.title')} · ${t('app.name')}`;
  }, [t]);
  const data = theses.data;
  return (
    <div class="page discover-page">
      <h1>{t('discover.title')}</h1>
      <p class="muted">{t('discover.intro')}</p>
      <section aria-busy={theses.loading} aria-label={t('discover.title')}>
        {theses.loading && !data && <Loading label={t('discover.loading')} />}
        {!!theses.error && <ErrorView error={theses.error} onRetry={theses.retry} />}
        {!theses.loading && !theses.error && (!data || data.theses.length === 0) && (
          <Empty>
            <p>{t('discover.empty')}</p>
            <a href="/">{t('market.back')}</a>
          </Empty>
        )}
        {data && data.theses.length > 0 && (
          <>
            {/* The theses' own text direction, as the server states it for their locale. */}
            <ol class="theses" dir={data.dir} lang={data.locale} data-testid="theses">
              {data.theses.map((th) => (
                <ThesisCard key={th.market} thesis={th} />
              ))}
            </ol>
            <p class="muted">{t('discover.generated', { time: i18n.dateTime(data.generatedAt) })}</p>
          </>
        )}
      </section>
    </div>
  );
}

function ThesisCard({ thesis }: { thesis: Thesis }) {
  const { t } = useI18n();
  return (
    <li class="card thesis" data-testid="thesis">
      <div class="card-meta">
        <span class="badge">{thesis.categoryLabel}</span>
        {thesis.kinds
          .filter((k) => KINDS.includes(k))
          .map((k) => (
            <span key={k} class="badge badge-kind">
              {t(`discover.kind.${k}` as MessageKey)}
            </span>
          ))}
      </div>
      <h2 class="card-title">
        <a href={`/markets/${thesis.market.toLowerCase()}`}>{thesis.question}</a>
      </h2>
      <p class="thesis-text" data-testid="thesis-text">
        {thesis.text}
      </p>
      <Chances outcomes={thesis.outcomes} />
      {/* A thesis is only written for a market whose close time is still ahead (docs/theses.md). */}
      <CardStats market={thesis} closed={false} />
    </li>
  );
}
