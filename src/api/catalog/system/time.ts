// GET /time: the server clock, in the spec's milliseconds (serverTime) and in the Unix seconds every wallet proof's
// timestamp is written in (signatureTimestamp, the {timestamp} of the published templates).
import { z } from 'zod';
import { WALLET_PROOF_WINDOW_SECONDS } from '../../../core/wallet-proof.ts';
import { defineCapability } from '../types.ts';

export const getTime = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/time',
  category: 'system',
  summary: 'Server time',
  description: `The server clock: serverTime in Unix epoch milliseconds, and unixSeconds, the same instant in whole Unix seconds. Wallet proofs (signatureTimestamp, the {timestamp} of every signed template) take Unix seconds: sign with unixSeconds; a proof is accepted within ${WALLET_PROOF_WINDOW_SECONDS} s of the server's clock.`,
  tier: null,
  rateClass: 'uncharged',
  idempotent: true,
  mcp: { tool: 'svc_get_time' },
  output: z.object({
    serverTime: z.number().int().describe('Unix epoch milliseconds'),
    unixSeconds: z.number().int().describe('Unix epoch seconds (floor of serverTime / 1000): the unit of wallet-proof timestamps'),
  }),
  errors: [],
  handler: async (ctx) => {
    const ms = ctx.clock.now().getTime();
    return { serverTime: ms, unixSeconds: Math.floor(ms / 1000) };
  },
});
