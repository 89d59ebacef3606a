/**
 * The anonymous path's human check, behind one interface so the operator picks the verifier:
 * - 'pow' (embedded default): a proof-of-work challenge served by GET /human-check/challenge,
 *   its salt a single-use nonce of the nonce service (300 s). It prices automation; it does not
 *   tell a person from a program, so a public deployment should configure Turnstile.
 * - 'turnstile': a Turnstile-compatible siteverify call (Cloudflare Turnstile, or any service that
 *   speaks the same form POST and `{success}` answer) with the operator's secret.
 */
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { parsePowToken, powSatisfied, POW_TOKEN_PREFIX } from '../../core/pow.ts';
import type { Executor } from '../../db/index.ts';
import type { NonceRefusal, NonceService } from './nonces.ts';
import type { Logger } from '../../core/logger.ts';

const SITEVERIFY_TIMEOUT_MS = 10_000;

export type HumanCheckChallenge =
  | { kind: 'pow'; algorithm: 'SHA-256'; salt: string; bits: number; expiresAt: string; tokenFormat: string }
  | { kind: 'turnstile'; siteKey: string | null };

/** A token that passed; `spend` uses it up. */
export interface HumanCheckPass {
  /**
   * Inside the transaction of the registration it admits: a proof-of-work challenge is spent there, so a registration
   * that rolls back leaves it usable for the retry. A Turnstile token was spent by the verifier already (nothing to do).
   * Throws HUMAN_CHECK_FAILED (NONCE_USED) when the challenge was spent meanwhile.
   */
  spend(trx: Executor): Promise<void>;
}

export interface HumanCheck {
  readonly kind: 'pow' | 'turnstile';
  /** The site key a Turnstile widget needs, published in GET /mcp-discovery; null for 'pow'. */
  readonly siteKey: string | null;
  challenge(): Promise<HumanCheckChallenge>;
  /** Throws HUMAN_CHECK_FAILED (with a reason) or SERVICE_UNAVAILABLE when the verifier cannot be reached. */
  verify(token: string, clientIp: string): Promise<HumanCheckPass>;
}

const spentByVerifier: HumanCheckPass = { spend: async () => undefined };

const failed = (reason: string, detail: string, extra: Record<string, unknown> = {}) =>
  problem('HUMAN_CHECK_FAILED', detail, { extensions: { reason, ...extra } });

/** How the anonymous path's human check runs (HUMAN_CHECK and its settings, docs/identity.md). */
export type HumanCheckSettings =
  | { kind: 'pow'; bits: number }
  | { kind: 'turnstile'; siteverifyUrl: string; secret: string; siteKey: string | null };

export function createHumanCheck(deps: { config: HumanCheckSettings; nonces: NonceService; clock: Clock; log: Logger }): HumanCheck {
  const { config } = deps;
  if (config.kind === 'turnstile') {
    return {
      kind: 'turnstile',
      siteKey: config.siteKey,
      challenge: async () => ({ kind: 'turnstile', siteKey: config.siteKey }),
      async verify(token, clientIp) {
        let answer: { success?: unknown; 'error-codes'?: unknown };
        try {
          const res = await fetch(config.siteverifyUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ secret: config.secret, response: token, remoteip: clientIp }),
            signal: AbortSignal.timeout(SITEVERIFY_TIMEOUT_MS),
          });
          if (!res.ok) throw new Error(`siteverify answered HTTP ${res.status}`);
          answer = (await res.json()) as typeof answer;
        } catch (err) {
          throw problem('SERVICE_UNAVAILABLE', 'the human-check verifier is not reachable; retry shortly', { cause: err, headers: { 'Retry-After': '5' } });
        }
        if (answer.success !== true) {
          const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].filter((c): c is string => typeof c === 'string') : [];
          // The verifier refusing our secret is the operator's misconfiguration, not the caller's fault.
          if (codes.some((c) => c.includes('secret'))) {
            deps.log.error({ verifierCodes: codes }, 'the human-check verifier refused HUMAN_CHECK_SECRET');
            throw problem('SERVICE_UNAVAILABLE', 'the human check is misconfigured on this service; retry later', { headers: { 'Retry-After': '60' } });
          }
          throw failed('TOKEN_REJECTED', 'the human-check token was rejected by the verifier; solve a new challenge', { verifierCodes: codes });
        }
        return spentByVerifier;
      },
    };
  }
  return {
    kind: 'pow',
    siteKey: null,
    async challenge() {
      const { nonce, expiresAt } = await deps.nonces.issue('human-check');
      return {
        kind: 'pow',
        algorithm: 'SHA-256',
        salt: nonce,
        bits: config.bits,
        expiresAt: expiresAt.toISOString(),
        tokenFormat: `${POW_TOKEN_PREFIX}:{salt}:{solution}`,
      };
    },
    async verify(token) {
      const parsed = parsePowToken(token);
      if (!parsed) throw failed('TOKEN_MALFORMED', `humanCheckToken must read ${POW_TOKEN_PREFIX}:{salt}:{solution} (GET /human-check/challenge)`);
      if (!powSatisfied(parsed.salt, parsed.solution, config.bits)) {
        throw failed('WORK_INSUFFICIENT', `SHA-256("{salt}:{solution}") must start with ${config.bits} zero bits`);
      }
      const refused = (refusal: NonceRefusal | null) => {
        if (refusal) throw failed(refusal, refusal === 'NONCE_USED' ? 'this challenge was already used; fetch a new one' : 'this challenge is unknown or expired; fetch a new one');
      };
      refused(await deps.nonces.refusal(parsed.salt, 'human-check'));
      return { spend: async (trx) => refused(await deps.nonces.consume(parsed.salt, 'human-check', 'human-check', trx)) };
    },
  };
}
