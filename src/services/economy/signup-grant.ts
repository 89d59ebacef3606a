/**
 * GET /economy/signup-grant (docs/economy.md "Signup grant"): what the signed-in wallet was credited at signup — the
 * play-money grant the ledger books (reason SIGNUP_GRANT) when a wallet is first bound to an agent. Read from the
 * ledger's own operation, so it says what was granted then, not what the configuration says now.
 */
import { sql } from 'kysely';
import { COLLATERAL_DECIMALS, CREDIT_REASONS } from '../../core/ledger/types.ts';
import { batchHolding } from '../ledger/batch-range.ts';
import { rowToOp } from '../ledger/rows.ts';
import type { EconomyDeps } from './deps.ts';

export interface SignupGrant {
  walletAddress: string;
  granted: boolean;
  /** Base units of the play-money collateral (ledger asset 0); '0' when nothing was granted. */
  amount: string;
  decimals: number;
  asset: { ledgerAssetId: '0'; kind: 'play-money collateral' };
  agentId: string | null;
  grantedAt: string | null;
  /** The ledger operation's sequence and whether a batch committed on chain holds it yet. */
  ledger: { seq: string; committed: boolean; proofUrl: string } | null;
  /** What a wallet bound now would get (LEDGER_SIGNUP_GRANT). */
  currentGrant: string;
}

export async function signupGrantOf(deps: EconomyDeps & { currentGrant: bigint }, wallet: string): Promise<SignupGrant> {
  const walletKey = wallet.toLowerCase();
  const agent = await deps.db.selectFrom('agents').select('id').where('wallet_address', '=', walletKey).executeTakeFirst();
  const op = agent
    ? await deps.db
        .selectFrom('ledger_operations as o')
        // The batch holding it, if any: the grant is committed once that batch is confirmed on chain.
        .leftJoinLateral(batchHolding(deps.db, sql.ref('o.seq')), (join) => join.onTrue())
        .select(['o.seq', 'o.kind', 'o.op', 'o.created_at', 'b.status as batch_status'])
        // The ledger keys an operation by its submission's source and its index in it (ledger.ts).
        .where('o.source', 'in', [`signup-grant:${agent.id}#0`, `seed-play-money:${agent.id}#0`])
        .orderBy('o.seq')
        .executeTakeFirst()
    : undefined;
  const amount = op ? grantAmount(op) : 0n;
  const committed = op?.batch_status === 'confirmed';
  return {
    walletAddress: walletKey,
    granted: amount > 0n,
    amount: amount.toString(),
    decimals: COLLATERAL_DECIMALS,
    asset: { ledgerAssetId: '0', kind: 'play-money collateral' },
    agentId: agent?.id ?? null,
    grantedAt: op ? op.created_at.toISOString() : null,
    ledger: op ? { seq: op.seq, committed, proofUrl: `/api/v1/ledger/proof/${walletKey}` } : null,
    currentGrant: deps.currentGrant.toString(),
  };
}

/** The credit's amount as the ledger booked it. */
function grantAmount(row: { kind: 'credit' | 'match'; op: unknown }): bigint {
  const op = rowToOp(row);
  return op.type === 'credit' && op.credit.reason === CREDIT_REASONS.SIGNUP_GRANT && op.credit.delta > 0n ? op.credit.delta : 0n;
}
