// The public leaderboard: five rankings (traders by profit, volume and risk-adjusted profit; creators; voters), three
// periods, and a category for the trader rankings (GET /api/v1/leaderboard).
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import { LEADERBOARD_PERIODS, LEADERBOARD_SORTS, MARKET_CATEGORIES, TRADER_SORTS, type Leaderboard, type LeaderboardEntry, type LeaderboardPeriod, type LeaderboardSort } from '../api/types.ts';
import { categoryName } from '../components/labels.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n, type I18n } from '../i18n/i18n.ts';

const PAGE_SIZE = 50;

export function LeaderboardPage() {
  const i18n = useI18n();
  const { t } = i18n;
  const [sort, setSort] = useState<LeaderboardSort>('PNL');
  const [period, setPeriod] = useState<LeaderboardPeriod>('7d');
  const [category, setCategory] = useState('ALL');
  const [limit, setLimit] = useState(PAGE_SIZE);
  const traderSort = TRADER_SORTS.includes(sort);
  const board = useFetch(
    (signal) => getJson<Leaderboard>('/api/v1/leaderboard', { sort, period, category: traderSort ? category : 'ALL', limit }, signal).then((a) => a.body),
    [sort, period, category, traderSort, limit],
  );
  useEffect(() => {
    document.title = `${t('leaderboard.title')} · ${t('app.name')}`;
  }, [t]);
  useEffect(() => setLimit(PAGE_SIZE), [sort, period, category]);

  const data = board.data;
  return (
    <div class="page leaderboard-page">
      <h1>{t('leaderboard.title')}</h1>
      <div class="segmented segmented-wide" role="group" aria-label={t('leaderboard.sort')}>
        {LEADERBOARD_SORTS.map((s) => (
          <button key={s} type="button" aria-pressed={s === sort} onClick={() => setSort(s)}>
            {t(`leaderboard.sort.${s}`)}
          </button>
        ))}
      </div>
      <div class="filter-row">
        <div class="field">
          <label for="lb-period">{t('leaderboard.period')}</label>
          <select id="lb-period" value={period} onChange={(e) => setPeriod(e.currentTarget.value as LeaderboardPeriod)}>
            {LEADERBOARD_PERIODS.map((p) => (
              <option key={p} value={p}>
                {t(`leaderboard.period.${p}`)}
              </option>
            ))}
          </select>
        </div>
        {traderSort && (
          <div class="field">
            <label for="lb-category">{t('leaderboard.category')}</label>
            <select id="lb-category" value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
              <option value="ALL">{t('category.any')}</option>
              {MARKET_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {categoryName(t, c)}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      <section aria-busy={board.loading} aria-label={t(`leaderboard.sort.${sort}`)}>
        {board.loading && !data && <Loading label={t('leaderboard.loading')} />}
        {!!board.error && <ErrorView error={board.error} onRetry={board.retry} />}
        {data && data.entries.length === 0 && <Empty>{t('leaderboard.empty')}</Empty>}
        {data && data.entries.length > 0 && (
          <div class="table-scroll">
            <table data-testid="leaderboard-table">
              <thead>
                <tr>
                  <th scope="col">{t('leaderboard.rank')}</th>
                  <th scope="col">{t('leaderboard.who')}</th>
                  <th scope="col">{t(`leaderboard.sort.${data.sort}`)}</th>
                </tr>
              </thead>
              <tbody>
                {data.entries.map((e) => (
                  <tr key={e.walletAddress}>
                    <td>{i18n.number(e.rank)}</td>
                    <td>
                      {e.agentName && <span class="agent-name">{e.agentName} </span>}
                      <a class="mono" href={`/profiles/${e.walletAddress.toLowerCase()}`} title={e.walletAddress}>
                        {shortAddress(e.walletAddress)}
                      </a>
                    </td>
                    <td>{valueOf(i18n, data, e)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {data && <p class="muted">{t('leaderboard.asOf', { time: i18n.dateTime(data.asOf) })}</p>}
        {data && data.nextOffset !== null && limit < 100 && (
          <button type="button" class="button button-wide" onClick={() => setLimit(100)}>
            {t('leaderboard.more')}
          </button>
        )}
      </section>
    </div>
  );
}

function valueOf(i18n: I18n, board: Leaderboard, e: LeaderboardEntry): string {
  if (board.valueUnit === 'usd_micro') return i18n.usdMicro(e.value);
  if (board.valueUnit === 'points') return i18n.t('leaderboard.points', { n: i18n.number(e.value) });
  return i18n.number(e.value);
}
