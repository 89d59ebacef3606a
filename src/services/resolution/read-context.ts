/**
 * What the resolution reads share (docs/resolution-reads.md): their dependencies, who is calling as a resolution sees
 * them (the bound wallet, the wallets linked under its identity, whether that identity is a verified human), and the
 * resolver's council as the contract holds it.
 */
import type { Kysely } from 'kysely';
import { parseAbi, type Address, type PublicClient } from 'viem';
import type { Principal } from '../../core/principal.ts';
import type { DB } from '../../db/schema.ts';
import { findAgent } from '../identity/agents.ts';
import type { HumanVerificationService } from '../identity/human-verification.ts';
import type { VoteService } from './votes.ts';

export interface ResolutionReadDeps {
  db: Kysely<DB>;
  client: PublicClient;
  chainId: number;
  resolver: Address;
  humans: Pick<HumanVerificationService, 'voterOf'>;
  votes: Pick<VoteService, 'session'>;
  /** Runs a chain read, turning an unreachable node into 503 SERVICE_UNAVAILABLE (ChainService.guard). */
  guard: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** The caller of a resolution read. */
export interface ResolutionCaller {
  /** An API key was sent. */
  signedIn: boolean;
  /** The key's agent's bound wallet, lowercase; null without a key, for an operator key, or an agent without one. */
  wallet: string | null;
  /** The bound wallet and every wallet linked under its identity, lowercase (empty without a bound wallet). */
  wallets: string[];
  /** The unit one ballot counts for (`identity:<id>` or `wallet:<address>`); null without a bound wallet. */
  identityKey: string | null;
  /** The identity holds a live human attestation (docs/identity.md "Verified humans"). */
  verified: boolean;
}

export const ANONYMOUS: ResolutionCaller = { signedIn: false, wallet: null, wallets: [], identityKey: null, verified: false };

export async function resolutionCallerOf(deps: Pick<ResolutionReadDeps, 'db' | 'humans'>, principal: Principal | null): Promise<ResolutionCaller> {
  if (!principal) return ANONYMOUS;
  const agent = principal.agentId ? await findAgent(deps.db, principal.agentId) : undefined;
  const wallet = agent?.wallet_address?.toLowerCase() ?? null;
  if (!wallet) return { signedIn: true, wallet: null, wallets: [], identityKey: null, verified: false };
  const voter = await deps.humans.voterOf(wallet);
  return { signedIn: true, wallet, wallets: voter.wallets.includes(wallet) ? voter.wallets : [wallet, ...voter.wallets], identityKey: voter.identityKey, verified: voter.attestation !== null };
}

export interface Council {
  /** Lowercase, in the contract's order. */
  members: string[];
  /** Signatures of one outcome that councilDecide needs (0 while no council is set). */
  threshold: number;
}

const COUNCIL_ABI = parseAbi(['function councilMembers() view returns (address[])', 'function councilThreshold() view returns (uint256)']);

export async function councilOf(deps: Pick<ResolutionReadDeps, 'client' | 'resolver' | 'guard'>): Promise<Council> {
  const [members, threshold] = await deps.guard(() =>
    Promise.all([
      deps.client.readContract({ address: deps.resolver, abi: COUNCIL_ABI, functionName: 'councilMembers' }),
      deps.client.readContract({ address: deps.resolver, abi: COUNCIL_ABI, functionName: 'councilThreshold' }),
    ]),
  );
  return { members: members.map((m) => m.toLowerCase()), threshold: Number(threshold) };
}
