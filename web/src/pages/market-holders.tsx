// Who holds a market's shares: per outcome the shares outstanding, the number of holders and the largest of them,
// each linked to their profile (GET /api/agent/v1/discover/markets/{address}/holders).
import { getJson } from '../api/client.ts';
import type { Holders } from '../api/read-types.ts';
import type { Market } from '../api/types.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';

/** Holders shown per outcome (the API gives up to 20). */
const SHOWN = 5;

export function MarketHolders({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const holders = useFetch((signal) => getJson<Holders>(`/api/agent/v1/discover/markets/${market.address}/holders`, {}, signal).then((a) => a.body), [market.address]);
  const h = holders.data;
  const c = market.collateral;
  return (
    <section class="panel" aria-labelledby="holders-title" data-testid="holders">
      <h2 id="holders-title">{t('market.holders')}</h2>
      {holders.loading && !h && <Loading label={t('market.loading')} />}
      {!!holders.error && <ErrorView error={holders.error} onRetry={holders.retry} />}
      {h && h.holderCount === 0 && <Empty>{t('market.holders.empty')}</Empty>}
      {h && h.holderCount > 0 && (
        <>
          <dl class="stats">
            <div>
              <dt>{t('market.holders.wallets')}</dt>
              <dd>{i18n.number(h.holderCount)}</dd>
            </div>
            <div>
              <dt>{t('market.holders.openInterest')}</dt>
              <dd>{i18n.amount(h.openInterest, c.decimals, c.symbol)}</dd>
            </div>
          </dl>
          {h.holders
            .filter((o) => o.top.length > 0)
            .map((o) => (
              <table key={o.index} class="holders-table">
                <caption>
                  {o.label} · {t('market.holders.count', { n: i18n.number(o.holderCount) })}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">{t('market.holders.wallet')}</th>
                    <th scope="col">{t('market.trades.shares')}</th>
                  </tr>
                </thead>
                <tbody>
                  {o.top.slice(0, SHOWN).map((holder) => (
                    <tr key={holder.address}>
                      <td>
                        <a class="mono" href={`/profiles/${holder.address.toLowerCase()}`} title={holder.address}>
                          {shortAddress(holder.address)}
                        </a>
                      </td>
                      <td>{i18n.amount(holder.shares, c.decimals)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
        </>
      )}
    </section>
  );
}
