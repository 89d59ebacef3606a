// One market in the listing: question, state, each outcome's chance, 24 h volume and close time. Its chances and stats
// also make the discover page's thesis cards.
import type { Market } from '../api/types.ts';
import { useI18n } from '../i18n/i18n.ts';
import { categoryName } from './labels.ts';

export function MarketCard({ market }: { market: Market }) {
  const { t } = useI18n();
  const closed = new Date(market.closeTime).getTime() <= Date.now();
  return (
    <article class="card" data-testid="market-card" data-address={market.address.toLowerCase()}>
      <div class="card-meta">
        <span class="badge">{categoryName(t, market.category)}</span>
        <span class={`badge badge-state badge-${market.state}`}>{t(`state.${market.state}`)}</span>
      </div>
      <h3 class="card-title">
        <a href={`/markets/${market.address.toLowerCase()}`}>{market.question}</a>
      </h3>
      <Chances outcomes={market.outcomes} />
      <CardStats market={market} closed={closed} />
    </article>
  );
}

/** Each outcome's chance, as a bar and a percentage. */
export function Chances({ outcomes }: { outcomes: readonly { index: number; label: string; price: string }[] }) {
  const i18n = useI18n();
  return (
    <ul class="chances">
      {outcomes.map((o) => (
        <li key={o.index}>
          <span class="chance-label">{o.label}</span>
          <span class="chance-bar" aria-hidden="true">
            <span style={{ width: `${Math.round(Number(o.price) * 100)}%` }} />
          </span>
          <strong class="chance-value">{i18n.percent(o.price)}</strong>
        </li>
      ))}
    </ul>
  );
}

/** The 24 h volume (collateral base units) and the close time, relative, with the full date on hover. */
export function CardStats({ market, closed }: { market: { volume24h: string; collateral: { decimals: number; symbol: string }; closeTime: string }; closed: boolean }) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <dl class="card-stats">
      <div>
        <dt>{t('card.volume24h')}</dt>
        <dd>{i18n.amount(market.volume24h, market.collateral.decimals, market.collateral.symbol)}</dd>
      </div>
      <div>
        <dt>{closed ? t('card.closed') : t('card.closes')}</dt>
        <dd>
          <time dateTime={market.closeTime} title={i18n.dateTime(market.closeTime)}>
            {i18n.relative(market.closeTime)}
          </time>
        </dd>
      </div>
    </dl>
  );
}
