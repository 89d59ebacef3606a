// GET /api/v1/ledger/proof/{account} and its agent twin GET /api/agent/v1/ledger/proof/{account} (also the MCP tool
// svc_get_ledger_proof_by_account): an account's committed play-money balances, each with its Merkle proof against the
// root of the last batch accepted on chain (never an uncommitted one). docs/ledger.md "Proofs".
import { z } from 'zod';
import { problem } from '../../../core/error-codes.ts';
import { COLLATERAL_DECIMALS, parseAsset, type Account } from '../../../core/ledger/types.ts';
import { LEAF_ENCODING } from '../../../core/ledger/merkle.ts';
import { ChainId, EvmAddress, Hash32, IsoTimestamp } from '../../../wire/schemas.ts';
import { defineCapability, type HandlerContext } from '../types.ts';

const Digits = z.string().regex(/^[0-9]+$/);

const LedgerProofResponse = z.object({
  account: EvmAddress.describe('lowercase'),
  chainId: ChainId,
  contract: EvmAddress.describe('the LedgerCommitment contract the proofs verify against'),
  batchNonce: z.number().int().nonnegative().describe('batchNonce() of the contract for this root; 0 before the first batch'),
  root: Hash32.describe('ledgerRoot() after that batch; 32 zero bytes before the first batch'),
  committedAt: IsoTimestamp.nullable(),
  txHash: Hash32.nullable(),
  blockNumber: Digits.nullable(),
  leafEncoding: z.string(),
  balances: z.array(
    z.object({
      assetId: Digits.describe('uint256: 0 is the play-money collateral, (marketId << 8) | side an outcome'),
      asset: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('collateral'), decimals: z.number().int() }),
        z.object({ kind: z.literal('outcome'), marketId: Digits, side: z.union([z.literal(0), z.literal(1)]) }),
      ]),
      balance: z.string().regex(/^-?[0-9]+$/).describe('int256, base units (collateral) or whole shares (outcome)'),
      leaf: Hash32,
      proof: z.array(Hash32).describe('sibling hashes bottom-up; verify with OpenZeppelin MerkleProof.verify(proof, root, leaf)'),
    }),
  ),
});

const DESCRIPTION =
  'Every non-zero committed play-money balance of the account (collateral and outcome shares), each with its leaf and Merkle proof against the root of the last batch the LedgerCommitment contract accepted, plus that root, its batch nonce, the chain and the contract. Operations not yet in a committed batch are not included. An account with nothing committed answers an empty list.';
const VERIFY =
  ' To check it without trusting svc: leaf = keccak256(keccak256(abi.encodePacked(address account, uint256 assetId, int256 balance))); fold proof bottom-up with node = keccak256 of the sorted pair (the smaller hash first); the result must equal root, and root must equal ledgerRoot() read from contract on chainId (OpenZeppelin MerkleProof.verify(proof, root, leaf) does the fold). skill.md "Verify your ledger balance" walks through it.';

/** The proofs of one account against the last committed root; the handler of both surfaces. */
async function ledgerProof(ctx: HandlerContext, { params }: { params: { account: string } }): Promise<z.output<typeof LedgerProofResponse>> {
  if (!/^0x[a-fA-F0-9]{40}$/.test(params.account)) throw problem('INVALID_ADDRESS', 'account must be an EVM address (0x + 40 hex digits)');
  // The proof tree lives in the leader's memory (docs/operations.md); a call reaches another process only forwarded. A
  // process just elected builds it first (in turns, while it serves requests).
  const batcher = ctx.services.ledgerBatcher;
  if (!ctx.services.cluster.isLeader() || !batcher.loaded()) throw problem('SERVICE_UNAVAILABLE', 'ledger proofs are served by the leading process, which is changing; retry shortly', { headers: { 'Retry-After': '1' } });
  const account = params.account.toLowerCase() as Account;
  const c = batcher.committed();
  return {
    account,
    chainId: batcher.chainId,
    contract: batcher.contract,
    batchNonce: Number(c.nonce),
    root: c.root,
    committedAt: c.confirmedAt?.toISOString() ?? null,
    txHash: c.txHash,
    blockNumber: c.blockNumber?.toString() ?? null,
    leafEncoding: LEAF_ENCODING,
    balances: batcher.proof(account).map((p) => {
      const outcome = parseAsset(p.assetId);
      return {
        assetId: p.assetId.toString(),
        asset: outcome ? { kind: 'outcome' as const, marketId: outcome.marketId.toString(), side: outcome.side } : { kind: 'collateral' as const, decimals: COLLATERAL_DECIMALS },
        balance: p.balance.toString(),
        leaf: p.leaf,
        proof: p.proof,
      };
    }),
  };
}

/** Everything but the surface: one read, one handler, one schema on both. */
const PROOF_READ = {
  category: 'ledger',
  summary: 'Ledger balances with Merkle proofs',
  tier: null,
  rateClass: 'read',
  idempotent: true,
  input: { params: z.strictObject({ account: z.string() }) },
  invalidInputCode: 'INVALID_ADDRESS',
  output: LedgerProofResponse,
  outputName: 'LedgerProofResponse',
  errors: ['INVALID_ADDRESS', 'SERVICE_UNAVAILABLE'],
  route: 'leader',
  handler: ledgerProof,
} as const;

export const getLedgerProof = defineCapability({
  surface: 'consumer',
  method: 'GET',
  path: '/ledger/proof/:account',
  description: DESCRIPTION,
  ...PROOF_READ,
});

/** The same read on the agent surface (REST and MCP), with the verification recipe in its description. */
export const getAgentLedgerProof = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/ledger/proof/:account',
  description: DESCRIPTION + VERIFY,
  mcp: { tool: 'svc_get_ledger_proof_by_account' },
  ...PROOF_READ,
});
