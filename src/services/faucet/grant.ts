/**
 * POST /faucet: test funds for the wallet bound to the calling agent, at most one grant per wallet and per API key a
 * window (the rate-limit store: 429 RATE_LIMITED with Retry-After), and only where the faucet exists (403
 * FEATURE_DISABLED with its reason otherwise). The operator's `svc faucet <address>` pays any address, unlimited.
 */
import { problem } from '../../core/error-codes.ts';
import { FAUCET_LIMITS, FAUCET_OFF_DETAIL, FAUCET_WINDOW_MS } from '../../core/faucet.ts';
import type { Principal } from '../../core/principal.ts';
import { requireAgent } from '../identity/agents.ts';
import type { EffectRecorder } from '../idempotency/idempotency.ts';
import { chargeBudget } from '../rate-limit/charge.ts';
import type { FaucetDeps, FaucetGrant } from './deps.ts';
import { payGrant, recordGrant } from './pay.ts';

const HOURS = FAUCET_WINDOW_MS / 3_600_000;

export function requireFaucet(deps: Pick<FaucetDeps, 'off'>): void {
  if (deps.off !== null) throw problem('FEATURE_DISABLED', FAUCET_OFF_DETAIL[deps.off], { extensions: { reason: deps.off } });
}

export async function grantToAgent(deps: FaucetDeps, principal: Principal, recordEffect?: EffectRecorder): Promise<FaucetGrant> {
  requireFaucet(deps);
  const wallet = (await requireAgent(deps.db, principal)).wallet_address?.toLowerCase();
  if (!wallet) throw problem('WALLET_NOT_BOUND', 'the faucet pays the wallet bound to your agent: bind one first (POST /agents/me/bind-wallet)');
  // The wallet's budget first: a wallet already paid in the window leaves the key's budget untouched.
  await chargeBudget(deps, {
    bucket: `faucet:wallet:${deps.chainId}:${wallet}`,
    limit: FAUCET_LIMITS.perWallet,
    windowMs: FAUCET_WINDOW_MS,
    spent: (s) => `wallet ${wallet} had its faucet grant in the last ${HOURS} h; retry after ${s} s`,
    extensions: { limit: 'wallet' },
  });
  await chargeBudget(deps, {
    bucket: `faucet:key:${principal.keyId}`,
    limit: FAUCET_LIMITS.perKey,
    windowMs: FAUCET_WINDOW_MS,
    spent: (s) => `this API key had its faucet grant in the last ${HOURS} h; retry after ${s} s`,
    extensions: { limit: 'key' },
  });
  const id = await recordGrant(deps, { wallet, agentId: principal.agentId, keyId: principal.keyId }, recordEffect);
  return payGrant(deps, id);
}

/** The operator's grant (`svc faucet <address>`): any address, no rate limit; only where the faucet exists. */
export async function grantByOperator(deps: FaucetDeps, address: string): Promise<FaucetGrant> {
  requireFaucet(deps);
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw problem('INVALID_ADDRESS', `'${address}' is not an address (0x + 40 hex digits)`);
  const id = await recordGrant(deps, { wallet: address.toLowerCase(), agentId: null, keyId: null });
  return payGrant(deps, id);
}
