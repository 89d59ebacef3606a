// A wallet's public profile: its reputation tier (never a score), its P&L curve and totals, its track record and the
// markets it created (GET /api/agent/v1/profile/{address}, …/pnl-history; GET /api/v1/markets?creator=…).
import { useEffect } from 'preact/hooks';
import { ApiError, getJson } from '../api/client.ts';
import type { PnlHistory, Profile } from '../api/read-types.ts';
import type { MarketListings } from '../api/types.ts';
import { MarketCard } from '../components/market-card.tsx';
import { PnlChart } from '../components/pnl-chart.tsx';
import { Stat } from '../components/stat.tsx';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MARKETS_SHOWN = 12;

export function ProfilePage({ address }: { address: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const valid = ADDRESS.test(address);
  // A malformed address never reaches the server: the page says so in the words of INVALID_ID.
  const refuse = () => Promise.reject(new ApiError(400, 'INVALID_ID', 'not an address'));
  const profile = useFetch((signal) => (valid ? getJson<Profile>(`/api/agent/v1/profile/${address}`, {}, signal).then((a) => a.body) : refuse()), [address]);
  const pnl = useFetch((signal) => (valid ? getJson<PnlHistory>(`/api/agent/v1/profile/${address}/pnl-history`, {}, signal).then((a) => a.body) : refuse()), [address]);
  useEffect(() => {
    document.title = `${t('profile.title')} ${shortAddress(address)} · ${t('app.name')}`;
  }, [address, t]);

  const p = profile.data;
  const name = p?.agent?.name ?? pnl.data?.agentName ?? null;
  return (
    <div class="page profile-page">
      <a href="/leaderboard" class="back">
        {t('nav.leaderboard')}
      </a>
      <header class="profile-head">
        <h1>
          {name ?? t('profile.title')}
          {p?.agent?.label === 'AI' && <span class="badge badge-ai">{t('profile.ai')}</span>}
        </h1>
        <p class="mono address" title={address}>
          {address.toLowerCase()}
        </p>
        {p && (
          <p class="tier-line" data-testid="profile-tier">
            {t('profile.tier')}:{' '}
            {p.reputation ? (
              <>
                <span class={`badge badge-tier tier-${p.reputation.tier}`}>{t(`tier.${p.reputation.tier}`)}</span>
                {p.reputation.tierSince && <span class="muted"> {t('profile.tierSince', { time: i18n.dateTime(p.reputation.tierSince) })}</span>}
              </>
            ) : (
              <span class="muted">{t('profile.tier.none')}</span>
            )}
          </p>
        )}
      </header>
      {profile.loading && !p && <Loading label={t('profile.loading')} />}
      {!!profile.error && <ErrorView error={profile.error} onRetry={valid ? profile.retry : undefined} />}
      {valid && (
        <div class="profile-layout">
          <section class="panel" aria-labelledby="pnl-title">
            <h2 id="pnl-title">{t('profile.pnl')}</h2>
            {pnl.loading && !pnl.data && <Loading label={t('profile.loading')} />}
            {!!pnl.error && <ErrorView error={pnl.error} onRetry={pnl.retry} />}
            {pnl.data && (
              <>
                <dl class="stats stats-grid" data-testid="pnl-totals">
                  <Stat term={t('profile.pnl.total')} value={i18n.usdMicro(pnl.data.totals.pnl)} />
                  <Stat term={t('profile.pnl.realized')} value={i18n.usdMicro(pnl.data.totals.realizedPnl)} />
                  <Stat term={t('profile.pnl.unrealized')} value={i18n.usdMicro(pnl.data.totals.unrealizedPnl)} />
                  <Stat term={t('profile.pnl.volume')} value={i18n.usdMicro(pnl.data.totals.volume)} />
                  <Stat term={t('profile.pnl.trades')} value={i18n.number(pnl.data.totals.trades)} />
                  <Stat term={t('profile.pnl.drawdown')} value={i18n.usdMicro(pnl.data.totals.maxDrawdown)} />
                </dl>
                <PnlChart history={pnl.data} />
              </>
            )}
          </section>
          {p && (
            <section class="panel" aria-labelledby="record-title">
              <h2 id="record-title">{t('profile.record')}</h2>
              <dl class="stats stats-grid" data-testid="track-record">
                <Stat term={t('profile.record.created')} value={i18n.number(p.trackRecord.marketsCreated)} />
                <Stat term={t('profile.record.live')} value={i18n.number(p.trackRecord.marketsLive)} />
                <Stat term={t('profile.record.resolved')} value={i18n.number(p.trackRecord.marketsResolved)} />
                <Stat term={t('profile.record.clean')} value={i18n.number(p.trackRecord.marketsResolvedClean)} />
                <Stat term={t('profile.record.disputesLost')} value={i18n.number(p.trackRecord.disputes.lost)} />
                <Stat term={t('profile.record.absences')} value={i18n.number(p.trackRecord.disputes.creatorAbsences)} />
                <Stat term={t('profile.record.challengesUpheld')} value={i18n.number(p.trackRecord.disputes.challengesUpheld)} />
                <Stat term={t('profile.record.challengesLost')} value={i18n.number(p.trackRecord.disputes.challengesLost)} />
                <Stat term={t('profile.record.ballots')} value={i18n.number(p.trackRecord.ballots.agreedWithVerdict)} />
                <Stat term={t('profile.record.ballotsAgainst')} value={i18n.number(p.trackRecord.ballots.againstVerdict)} />
                <Stat term={t('profile.pnl.trades')} value={i18n.number(p.trackRecord.trades)} />
              </dl>
            </section>
          )}
          <CreatedMarkets address={address} />
        </div>
      )}
    </div>
  );
}

function CreatedMarkets({ address }: { address: string }) {
  const { t } = useI18n();
  const markets = useFetch(
    (signal) => getJson<MarketListings>('/api/v1/markets', { creator: address.toLowerCase(), limit: MARKETS_SHOWN }, signal).then((a) => a.body.markets),
    [address],
  );
  return (
    <section class="panel profile-markets" aria-labelledby="created-title">
      <h2 id="created-title">{t('profile.markets')}</h2>
      {markets.loading && !markets.data && <Loading label={t('markets.loading')} />}
      {!!markets.error && <ErrorView error={markets.error} onRetry={markets.retry} />}
      {markets.data && markets.data.length === 0 && <Empty>{t('profile.marketsEmpty')}</Empty>}
      {markets.data && markets.data.length > 0 && (
        <div class="card-grid" data-testid="created-markets">
          {markets.data.map((m) => (
            <MarketCard key={m.address} market={m} />
          ))}
        </div>
      )}
    </section>
  );
}
