// How a market's resolution stands, read-only: close, proposal, challenge deadline and challenge, the community
// vote, the council and the final outcome (GET /api/agent/v1/markets/{address}/resolution; docs/resolution-reads.md).
// Deadlines are judged by chainTime, as the resolver judges them.
import { useEffect } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { Resolution } from '../api/read-types.ts';
import type { Market } from '../api/types.ts';
import { ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n, type I18n } from '../i18n/i18n.ts';

type StepStatus = 'done' | 'current' | 'upcoming';
interface Step {
  key: string;
  title: string;
  status: StepStatus;
  time: string | null;
  detail: string | null;
}

export function MarketResolution({ market }: { market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const res = useFetch((signal) => getJson<Resolution>(`/api/agent/v1/markets/${market.address}/resolution`, {}, signal).then((a) => a.body), [market.address]);
  // A resolution step the wallet took on this page (resolution-actions.tsx) is read again at once.
  useEffect(() => {
    window.addEventListener('svc:resolution-changed', res.retry);
    return () => window.removeEventListener('svc:resolution-changed', res.retry);
  }, [res.retry]);
  return (
    <section class="panel" aria-labelledby="resolution-title" data-testid="resolution">
      <h2 id="resolution-title">{t('market.resolution')}</h2>
      {res.loading && !res.data && <Loading label={t('market.loading')} />}
      {!!res.error && <ErrorView error={res.error} onRetry={res.retry} />}
      {res.data && (
        <ol class="timeline">
          {stepsOf(i18n, market, res.data).map((s) => (
            <li key={s.key} class={`step step-${s.status}`} data-step={s.key} data-status={s.status}>
              <span class="step-dot" aria-hidden="true" />
              <div>
                <strong>{s.title}</strong> <span class="step-status">({t(`market.resolution.step.${s.status}`)})</span>
                {s.time && (
                  <div>
                    <time dateTime={s.time}>{i18n.dateTime(s.time)}</time>
                  </div>
                )}
                {s.detail && <div class="muted">{s.detail}</div>}
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function stepsOf(i18n: I18n, market: Market, r: Resolution): Step[] {
  const { t } = i18n;
  const now = Date.parse(r.chainTime);
  const passed = (iso: string | null) => iso !== null && Date.parse(iso) <= now;
  const outcome = (n: number) => (n === 0 ? t('market.resolution.void') : (market.outcomes[n - 1]?.label ?? String(n)));
  const resolved = r.finalOutcome !== null;
  const steps: Step[] = [
    { key: 'close', title: t('market.resolution.close'), status: passed(r.deadlines.closeTime) ? 'done' : 'current', time: r.deadlines.closeTime, detail: null },
  ];
  const p = r.proposal;
  steps.push(
    p
      ? { key: 'proposal', title: t('market.resolution.proposal'), status: 'done', time: p.proposedAt, detail: t('market.resolution.proposedBy', { outcome: outcome(p.outcome), who: shortAddress(p.proposer) }) }
      : { key: 'proposal', title: t('market.resolution.proposal'), status: resolved ? 'done' : passed(r.deadlines.closeTime) ? 'current' : 'upcoming', time: r.deadlines.resolveBy, detail: t('market.resolution.awaiting') },
  );
  if (p) {
    const c = r.challenge;
    steps.push({
      key: 'challenge',
      title: c ? t('market.resolution.challenged') : t('market.resolution.challengeBy'),
      status: c || passed(p.challengeDeadline) ? 'done' : 'current',
      time: p.challengeDeadline,
      detail: c ? t('market.resolution.challengedBy', { who: shortAddress(c.challenger), outcome: outcome(c.counterOutcome), bond: i18n.amount(c.bond, 18, 'PM') }) : null,
    });
  }
  if (r.session || r.phase === 'voting' || (r.challenge && !resolved)) {
    const s = r.session;
    steps.push({
      key: 'vote',
      title: t('market.resolution.vote'),
      status: s?.status === 'closed' || s?.status === 'replaced' || resolved ? 'done' : s ? 'current' : 'upcoming',
      time: s?.voteDeadline ?? r.deadlines.voteDeadline,
      detail: s ? t('market.resolution.ballots', { round: i18n.number(s.round), ballots: i18n.number(s.ballotCount), quorum: i18n.number(s.quorum), status: t(`market.resolution.vote.${s.status}`) }) : null,
    });
  }
  if (r.council.phase !== null || r.phase === 'council') {
    steps.push({
      key: 'council',
      title: t('market.resolution.council'),
      status: r.council.phase === 'executed' || resolved ? 'done' : 'current',
      time: null,
      detail: t('market.resolution.signatures', { signed: i18n.number(r.council.signatures.length), threshold: i18n.number(r.council.threshold) }),
    });
  }
  steps.push({
    key: 'final',
    title: t('market.resolution.final'),
    status: resolved ? 'done' : 'upcoming',
    time: null,
    detail: resolved ? [outcome(r.finalOutcome!), r.creatorSlashed ? t('market.resolution.slashed') : ''].filter(Boolean).join('. ') : null,
  });
  return steps;
}
