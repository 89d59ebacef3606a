// Transaction status, on both interfaces: the chain receipt is authoritative; operationId and
// idempotencyKey are correlation labels echoed verbatim (null when not given). The consumer path answers bad input
// with the spec's INVALID_PAYLOAD; the agent twin, a GET with query parameters, with INVALID_QUERY like every agent GET.
import { z } from 'zod';
import type { Hex } from 'viem';
import { ChainId, ChainIdQuery, IsoTimestamp, TxHash } from '../../../wire/schemas.ts';
import { isProblemError } from '../../../core/errors.ts';
import { defineCapability, type HandlerContext } from '../types.ts';

const Label = z.string().min(1).max(200);

const StatusQuery = z.strictObject({
  chainId: ChainIdQuery.optional(),
  operationId: Label.optional(),
  idempotencyKey: Label.optional(),
  submittedAt: IsoTimestamp.optional(),
});

export const TransactionStatusResponse = z.object({
  state: z.enum(['CONFIRMED', 'REVERTED', 'PENDING', 'DROPPED']),
  operationId: z.string().nullable(),
  idempotencyKey: z.string().nullable(),
  chainId: ChainId,
  txHash: TxHash,
  blockNumber: z.string().regex(/^[0-9]+$/).nullable(),
  confirmedAt: IsoTimestamp.nullable(),
  statusUrl: z.string(),
  receipt: z
    .object({
      status: z.string(),
      blockNumber: z.string().regex(/^[0-9]+$/),
      blockHash: z.string().regex(/^0x[a-fA-F0-9]{64}$/),
      transactionIndex: z.string().regex(/^[0-9]+$/),
    })
    .nullable(),
});

/** A hash neither the node nor our relayer knows, submitted this recently (submittedAt), may still be propagating. */
export const SUBMITTED_GRACE_MS = 10 * 60_000;

const STATES_DOC = `States: CONFIRMED (mined, receipt status success), REVERTED (mined, receipt status reverted), PENDING (known to the node or to our relayer, not yet mined; or unknown but submitted, by submittedAt, less than ${SUBMITTED_GRACE_MS / 60_000} minutes ago), DROPPED (sent by our relayer, never mined, its nonce consumed by another transaction; or unknown though submitted longer ago than that). An unknown hash without submittedAt answers 404 NOT_FOUND; an unreachable node 503 SERVICE_UNAVAILABLE. operationId and idempotencyKey are correlation labels echoed verbatim from the query (null when not given).`;

async function statusOf(ctx: HandlerContext, hash: string, query: z.output<typeof StatusQuery>) {
  const chain = ctx.services.chain;
  chain.requireServed(query.chainId, 'INVALID_CHAIN');
  const status = await chain.transactionStatus(hash.toLowerCase() as Hex).catch((err: unknown) => {
    // The client says when it sent the transaction: an unknown hash is then still in flight, or lost.
    if (query.submittedAt === undefined || !isProblemError(err) || err.code !== 'NOT_FOUND') throw err;
    const age = ctx.clock.now().getTime() - Date.parse(query.submittedAt);
    return { state: age < SUBMITTED_GRACE_MS ? ('PENDING' as const) : ('DROPPED' as const), chainId: ctx.documents.site.chainId, txHash: hash.toLowerCase(), blockNumber: null, confirmedAt: null, receipt: null };
  });
  const params = new URLSearchParams({ hash: status.txHash, chainId: String(status.chainId) });
  if (query.operationId !== undefined) params.set('operationId', query.operationId);
  if (query.idempotencyKey !== undefined) params.set('idempotencyKey', query.idempotencyKey);
  return {
    ...status,
    operationId: query.operationId ?? null,
    idempotencyKey: query.idempotencyKey ?? null,
    statusUrl: `/api/agent/v1/transactions/status?${params.toString()}`,
  };
}

export const getTransactionConsumer = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/transactions/:hash',
  category: 'transactions',
  summary: 'Transaction status',
  description: `Chain-authoritative status of a transaction. ${STATES_DOC}`,
  tier: null,
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ hash: TxHash }), query: StatusQuery },
  invalidInputCode: 'INVALID_PAYLOAD',
  output: TransactionStatusResponse,
  outputName: 'TransactionStatusResponse',
  errors: ['INVALID_PAYLOAD', 'INVALID_CHAIN', 'NOT_FOUND', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { params, query }) => statusOf(ctx, params.hash, query),
});

export const getTransactionAgent = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/transactions/status',
  category: 'transactions',
  summary: 'Transaction status',
  description: `Agent-interface twin of GET /api/v1/transactions/{hash}, with the hash as a query parameter (this is the statusUrl both return). ${STATES_DOC}`,
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_transactions_status' },
  input: { query: StatusQuery.extend({ hash: TxHash }) },
  output: TransactionStatusResponse,
  outputName: 'TransactionStatusResponse',
  errors: ['INVALID_QUERY', 'INVALID_CHAIN', 'NOT_FOUND', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'],
  handler: async (ctx, { query }) => {
    const { hash, ...rest } = query;
    return statusOf(ctx, hash, rest);
  },
});
