// The human vote on a market page (docs/web.md "Pages", "Resolution actions"): while a vote round is open by the chain's
// time, the signed-in wallet signs its ballot (EIP-712 Ballot under the resolver's domain) and casts it through its
// session (POST /resolution/votes/{sessionId}/ballots; the server takes only the session's own wallet's ballot). Whether
// the wallet is a verified human, restricted, or already voted, the server says, and the refusal is shown in words.
import { useState } from 'preact/hooks';
import type { Resolution } from '../api/read-types.ts';
import type { Market } from '../api/types.ts';
import { newIdempotencyKey, sendJson } from '../api/write.ts';
import { OutcomeSelect, resolverOutcomes } from '../components/outcome-select.tsx';
import { ErrorView } from '../components/status.tsx';
import { useI18n } from '../i18n/i18n.ts';
import { useSession } from '../wallet/session.ts';

type Step = 'idle' | 'signing' | 'sending' | 'done';
type OpenSession = NonNullable<Resolution['session']> & { sessionId: string };

/** The round open for ballots now (chain time before its deadline), or null. */
export function openVoteSession(r: Resolution): OpenSession | null {
  const s = r.session as OpenSession | null;
  if (!s || s.status !== 'open' || s.voteDeadline === null) return null;
  return Date.parse(r.chainTime) < Date.parse(s.voteDeadline) ? s : null;
}

export function VoteAction({ market, resolution: r, session: s, onCast }: { market: Market; resolution: Resolution & { resolver: string; chainId: number }; session: OpenSession; onCast: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  // The ballot's wallet is the signed-in one: the server takes no other wallet's ballot from this session.
  const session = useSession();
  const [outcome, setOutcome] = useState(1);
  const [step, setStep] = useState<Step>('idle');
  const [error, setError] = useState<unknown>(null);
  const { choices, label } = resolverOutcomes(market, t('market.resolution.void'));

  const vote = async () => {
    setError(null);
    try {
      setStep('signing');
      const { signBallot } = await import('../wallet/resolver-signatures.ts');
      const signature = await signBallot({ chainId: r.chainId, resolver: r.resolver, market: market.address, round: s.round, outcome });
      setStep('sending');
      await sendJson('POST', `/api/agent/v1/resolution/votes/${s.sessionId}/ballots`, { walletAddress: session.status === 'signedIn' ? session.address : '', outcome, signature }, { idempotencyKey: newIdempotencyKey() });
      setStep('done');
      onCast();
    } catch (err) {
      setStep('idle');
      setError(err);
    }
  };

  const busy = step === 'signing' || step === 'sending';
  return (
    <section class="panel trade-form" aria-labelledby="vote-title" data-testid="resolution-actions">
      <h2 id="vote-title">{t('resolve.title')}</h2>
      <p class="muted">{t('resolve.vote.help', { time: i18n.dateTime(s.voteDeadline!) })}</p>
      {step !== 'done' && (
        <>
          <OutcomeSelect id="vote-outcome" caption={t('resolve.vote.outcome')} value={outcome} choices={choices} label={label} onChange={setOutcome} testId="vote-outcome" />
          <button type="button" class="button button-wide" disabled={busy} onClick={() => void vote()} data-testid="vote-cast">
            {t('resolve.vote')}
          </button>
        </>
      )}
      {step !== 'idle' && (
        <p class={step === 'done' ? 'success' : 'muted'} role="status" data-testid="vote-step">
          {step === 'done' ? t('resolve.vote.done') : t(`resolve.step.${step}`)}
        </p>
      )}
      {!!error && <ErrorView error={error} />}
    </section>
  );
}
