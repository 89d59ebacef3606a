/**
 * A wallet session as the principal of the trading loop (capabilities with walletSession: 'principal'; docs/web.md
 * "Trading with a wallet session"): the agent bound to the session's wallet, with what that agent's keys may do,
 * narrowed to trading and its own money out, and a rate budget of its own per wallet.
 */
import { entitlementOf } from '../../core/entitlement.ts';
import type { Principal } from '../../core/principal.ts';
import type { Scope } from '../../core/scopes.ts';
import { proofsOf } from '../../services/identity/agents.ts';
import type { Services } from '../../services/services.ts';

/**
 * What a session may do at most: read markets, quote, trade; read its own wallet's payouts and creator funds and claim
 * or collect them (they pay that wallet only); take the resolution steps its wallet signs or pays for. Never keys,
 * webhooks, social writes or market creation. docs/web.md "Trading with a wallet session".
 */
export const SESSION_SCOPES: readonly Scope[] = ['markets:read', 'trade:quote', 'trade:execute', 'portfolio:read', 'fees:claim', 'resolution:execute'];

/** The prefix of a session principal's keyId: `wallet:<address, lowercase>` (an API key's id is a uuid). */
const SESSION_KEY_ID = 'wallet:';

/** The signed-in wallet (lowercase) when the principal is a wallet session's, null when it is an API key's. */
export const sessionWalletOf = (principal: Principal | null): string | null =>
  principal?.keyId.startsWith(SESSION_KEY_ID) ? principal.keyId.slice(SESSION_KEY_ID.length).toLowerCase() : null;

/** The principal of a wallet session token; WALLET_AUTH_REQUIRED when it is unusable. */
export async function sessionPrincipal(services: Pick<Services, 'sessions' | 'registration'>, token: string, clientIp: string): Promise<Principal> {
  const session = await services.sessions.resolve(token);
  const agent = await services.registration.walletAgent(session.walletAddress, clientIp);
  // An operator's agent has no derived entitlement: its wallet's session trades like any wallet's.
  const entitlement = entitlementOf(proofsOf(agent)) ?? { tier: 'execute' as const, scopes: SESSION_SCOPES };
  return {
    // Budgets and Idempotency-Keys are the wallet's, whichever of its sessions calls.
    keyId: `${SESSION_KEY_ID}${session.walletAddress}`,
    agentId: agent.id,
    tier: entitlement.tier,
    scopes: SESSION_SCOPES.filter((s) => entitlement.scopes.includes(s)),
  };
}
