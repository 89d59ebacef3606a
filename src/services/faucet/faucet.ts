/**
 * The test-funds faucet of the embedded test environment (docs/faucet.md): gas, TestUSDC and PM for an agent's bound
 * wallet, sent by the operator through the relayer. This binds the operations of this folder.
 */
import type { Principal } from '../../core/principal.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import type { FaucetDeps, FaucetGrant } from './deps.ts';
import { grantByOperator, grantToAgent } from './grant.ts';
import { payGrant } from './pay.ts';
import { faucetTerms, type FaucetTerms } from './terms.ts';

export type { FaucetDeps, FaucetGrant, FaucetTransfer } from './deps.ts';
export type { FaucetAmount, FaucetTerms } from './terms.ts';

export interface FaucetService {
  /** What a grant pays and how often; enabled false (with the reason) where there is no faucet. */
  terms(): FaucetTerms;
  /** A grant to the calling agent's bound wallet, rate-limited per wallet and per key; paid before it answers. */
  grant(principal: Principal, recordEffect?: EffectRecorder): Promise<FaucetGrant>;
  /** The grant a keyed request kept (its answer was lost): paid if a crash stopped it, then answered the same. */
  replay(id: string): Promise<FaucetGrant>;
  /** The operator's grant to any address (`svc faucet`), not rate-limited. */
  fund(address: string): Promise<FaucetGrant>;
}

export function createFaucetService(deps: FaucetDeps): FaucetService {
  return {
    terms: () => faucetTerms(deps),
    grant: (principal, recordEffect) => grantToAgent(deps, principal, recordEffect),
    replay: (id) => payGrant(deps, id),
    fund: (address) => grantByOperator(deps, address),
  };
}
