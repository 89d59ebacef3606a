// The resolution steps open to the signed-in wallet on a market page (docs/resolution.md "Actions"; docs/web.md
// "Trading with a wallet session"): the creator proposes an outcome (signed in the wallet, relayed by the protocol),
// anyone but the creator challenges a proposal in its window (the wallet sends the bond's approval and the challenge),
// anyone finalizes an unchallenged proposal once its window passed. Each transaction is followed to CONFIRMED. Which
// step is open is judged by the chain's time of GET /markets/{address}/resolution, as the resolver judges it.
import { useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { Resolution } from '../api/read-types.ts';
import type { Market } from '../api/types.ts';
import { sendJson } from '../api/write.ts';
import { OutcomeSelect, resolverOutcomes } from '../components/outcome-select.tsx';
import { ErrorView } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { useI18n } from '../i18n/i18n.ts';
import { useSession } from '../wallet/session.ts';
import type { PreparedTransaction } from '../wallet/wallet.ts';
import { openVoteSession, VoteAction } from './resolution-vote.tsx';

const A = '/api/agent/v1';
/** What the page tells the timeline (market-resolution.tsx) once a step is confirmed: read the resolution again. */
export const RESOLUTION_CHANGED = 'svc:resolution-changed';

type Step = 'idle' | 'signing' | 'sending' | 'confirming' | 'done';
interface Relayed {
  txHash: `0x${string}`;
}
interface PreparedChallenge {
  bond: string;
  transactions: (PreparedTransaction & { purpose: 'approve' | 'challenge' })[];
}

export function ResolutionActions({ market }: { market: Market }) {
  const session = useSession();
  const [version, setVersion] = useState(0);
  const res = useFetch((signal) => getJson<Resolution & { resolver: string; chainId: number }>(`${A}/markets/${market.address}/resolution`, {}, signal).then((a) => a.body), [market.address, version]);
  if (session.status !== 'signedIn' || !res.data) return null;
  const r = res.data;
  const wallet = session.address.toLowerCase();
  const now = Date.parse(r.chainTime);
  const open = {
    propose: r.phase === null && market.state !== 'void' && wallet === market.creator.toLowerCase() && now <= Date.parse(r.deadlines.resolveBy),
    challenge: r.phase === 'proposed' && r.proposal !== null && now < Date.parse(r.proposal.challengeDeadline) && wallet !== market.creator.toLowerCase(),
    finalize: r.phase === 'proposed' && r.proposal !== null && now >= Date.parse(r.proposal.challengeDeadline),
  };
  const vote = openVoteSession(r);
  if (vote) return <VoteAction market={market} resolution={r} session={vote} onCast={() => window.dispatchEvent(new Event(RESOLUTION_CHANGED))} />;
  if (!open.propose && !open.challenge && !open.finalize) return version > 0 ? <Done /> : null;
  return <Actions key={r.phase ?? 'none'} market={market} resolution={r} open={open} onDone={() => setVersion((n) => n + 1)} />;
}

/** After a step, when the wallet has nothing more to do for now: the step's confirmation stays in view. */
function Done() {
  const { t } = useI18n();
  return (
    <section class="panel" aria-labelledby="resolve-title" data-testid="resolution-actions">
      <h2 id="resolve-title">{t('resolve.title')}</h2>
      <p class="success" role="status" data-testid="resolve-step">
        {t('resolve.step.done')}
      </p>
    </section>
  );
}

function Actions({ market, resolution: r, open, onDone }: { market: Market; resolution: Resolution & { resolver: string; chainId: number }; open: Record<'propose' | 'challenge' | 'finalize', boolean>; onDone: () => void }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [step, setStep] = useState<Step>('idle');
  const [error, setError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState(open.challenge && r.proposal?.outcome === 1 ? 2 : 1);
  const outcomes = resolverOutcomes(market, t('market.resolution.void'));
  const label = outcomes.label;
  const choices = outcomes.choices.filter((n) => !open.challenge || n !== r.proposal?.outcome);

  /** Runs one step: its transactions followed to CONFIRMED, then the page reads the resolution again. */
  const run = async (act: (w: typeof import('../wallet/wallet.ts')) => Promise<void>) => {
    setError(null);
    try {
      const w = await import('../wallet/wallet.ts');
      await act(w);
      setStep('done');
      window.dispatchEvent(new Event(RESOLUTION_CHANGED));
      onDone();
    } catch (err) {
      setStep('idle');
      setError(err);
    }
  };
  const propose = () =>
    run(async (w) => {
      setStep('signing');
      const { signProposal } = await import('../wallet/resolver-signatures.ts');
      // The relay may be mined until this deadline (chain time): ten minutes is plenty for the protocol to send it.
      const deadline = BigInt(Math.floor(Date.parse(r.chainTime) / 1000) + 600);
      const signature = await signProposal({ chainId: r.chainId, resolver: r.resolver as `0x${string}`, market: market.address as `0x${string}`, outcome, deadline });
      setStep('sending');
      const relayed = await sendJson<Relayed>('POST', `${A}/markets/${market.address}/resolution/propose`, { outcome, deadline: Number(deadline), signature });
      setStep('confirming');
      await w.followToConfirmed(relayed.txHash);
    });
  const challenge = () =>
    run(async (w) => {
      setStep('sending');
      const prepared = await sendJson<PreparedChallenge>('POST', `${A}/markets/${market.address}/resolution/challenge/prepare`, { counterOutcome: outcome });
      for (const tx of prepared.transactions) {
        setStep('signing');
        const hash = await w.sendPrepared(tx);
        setStep('confirming');
        await w.followToConfirmed(hash);
      }
    });
  const finalize = () =>
    run(async (w) => {
      setStep('sending');
      const relayed = await sendJson<Relayed>('POST', `${A}/markets/${market.address}/resolution/finalize`);
      setStep('confirming');
      await w.followToConfirmed(relayed.txHash);
    });

  const busy = step !== 'idle' && step !== 'done';
  return (
    <section class="panel trade-form" aria-labelledby="resolve-title" data-testid="resolution-actions">
      <h2 id="resolve-title">{t('resolve.title')}</h2>
      {(open.propose || open.challenge) && (
        <>
          <p class="muted">{open.propose ? t('resolve.propose.help') : t('resolve.challenge.help', { outcome: label(r.proposal?.outcome ?? 0) })}</p>
          <OutcomeSelect
            id="resolve-outcome"
            caption={open.propose ? t('resolve.outcome') : t('resolve.counterOutcome')}
            value={outcome}
            choices={choices}
            label={label}
            onChange={setOutcome}
            testId="resolve-outcome"
          />
          <button type="button" class="button button-wide" disabled={busy} onClick={() => void (open.propose ? propose() : challenge())} data-testid={open.propose ? 'resolve-propose' : 'resolve-challenge'}>
            {open.propose ? t('resolve.propose') : t('resolve.challenge')}
          </button>
        </>
      )}
      {open.finalize && (
        <>
          <p class="muted">{t('resolve.finalize.help', { outcome: label(r.proposal?.outcome ?? 0) })}</p>
          <button type="button" class="button button-wide" disabled={busy} onClick={() => void finalize()} data-testid="resolve-finalize">
            {t('resolve.finalize')}
          </button>
        </>
      )}
      {step !== 'idle' && (
        <p class={step === 'done' ? 'success' : 'muted'} role="status" data-testid="resolve-step">
          {t(`resolve.step.${step}`)}
        </p>
      )}
      {!!error && <ErrorView error={error} />}
    </section>
  );
}
