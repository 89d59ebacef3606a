/**
 * The create loop: preflight → propose → accept | reject → prepare-deploy → commit-deploy (docs/markets.md).
 * The creator is an agent with a bound wallet; that wallet signs and sends the factory transaction itself, and
 * commit-deploy registers the market from the mined receipt (market.created and market.live go into the events
 * outbox in the same transaction). The indexer later confirms the same creation from its log.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { encodeFunctionData, erc20Abi, getAddress, getContractAddress, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import { LMSR_FEES, MAX_LIVE_MARKETS_PER_CREATOR, MIN_LIQUIDITY, RESOLUTION_WINDOW_SECONDS } from '../../core/markets/fees.ts';
import { checkTerms, counterTerms, questionHash, type MarketTerms, type TermsProblem } from '../../core/markets/terms.ts';
import type { DB, NegotiationsTable } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/index.ts';
import type { Principal } from '../../core/principal.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { appendEvent } from '../events/outbox.ts';
import type { EventBus } from '../events/bus.ts';
import { requireAgent, type AgentRow } from '../identity/agents.ts';
import type { MarketIndexer } from './indexer.ts';
import { readMarketState } from './market-state.ts';
import { createdMarketOf, registerMarket, type MarketCreatedArgs } from './projection.ts';
import type { MarketRow } from './records.ts';
import { orderBookCreationsIn, PLAY_MONEY, registerOrderBookMarket } from '../orderbook/markets.ts';

/** How long a negotiation may wait for accept and deploy. */
export const NEGOTIATION_TTL_MS = 24 * 60 * 60 * 1000;

export type NegotiationRow = Selectable<NegotiationsTable>;

export interface CreationApproval {
  kind: 'erc20_approve';
  reason: 'create_market';
  chainId: number;
  token: Address;
  spender: Address;
  /** The exact amount the factory pulls (subsidy, bond, or both when the collateral is PM). */
  amount: string;
}

export interface Charges {
  outcomeCount: number;
  factory: Address;
  subsidy: { token: Address; symbol: string; amount: string };
  bond: { token: Address; symbol: 'PM'; amount: string };
}

export interface PreflightResult {
  ok: boolean;
  problems: TermsProblem[];
  questionHash: Hex;
  charges: Charges;
  approvalsMissing: CreationApproval[];
  balancesShort: { token: Address; symbol: string; required: string; balance: string }[];
  liveMarkets: { count: number; max: number };
  existingMarket: MarketRow | null;
  existingNegotiationId: string | null;
}

export interface NegotiationService {
  preflight(principal: Principal, terms: MarketTerms): Promise<PreflightResult>;
  propose(principal: Principal, terms: MarketTerms): Promise<{ negotiation: NegotiationRow; existing: boolean }>;
  accept(principal: Principal, id: string): Promise<NegotiationRow>;
  reject(principal: Principal, id: string): Promise<NegotiationRow>;
  prepareDeploy(principal: Principal, id: string): Promise<{ negotiation: NegotiationRow; charges: Charges; approvalsMissing: CreationApproval[]; balancesShort: PreflightResult['balancesShort']; predictedMarket: Address; transaction: { chainId: number; from: Address; to: Address; data: Hex; value: string } }>;
  commitDeploy(principal: Principal, id: string, txHash: Hex): Promise<{ negotiation: NegotiationRow; market: MarketRow }>;
  get(principal: Principal, id: string): Promise<NegotiationRow>;
}

/** Where an agent settles a negotiation (the negotiation.countered event names them); built at the edge from the routes. */
export type SettleLinks = (negotiationId: string) => { accept: string; reject: string };

export function createNegotiationService(deps: {
  db: Kysely<DB>;
  clock: Clock;
  chain: ChainService;
  indexer: MarketIndexer;
  events: EventBus;
  countLive: (creator: string) => Promise<number>;
  settleLinks: SettleLinks;
}): NegotiationService {
  const { db, clock, chain, indexer } = deps;
  const factoryAbi = loadArtifact('LmsrMarketFactory').abi;
  const orderbookFactoryAbi = loadArtifact('OrderBookMarketFactory').abi;
  const tokenOf = (symbol: 'USDC' | 'PM') => chain.collateral().find((c) => c.symbol === symbol)!.token;
  const factoryFor = (outcomes: number): Address => (outcomes === 3 ? chain.lane().factories.ternary : chain.lane().factories.binary);

  async function wallet(principal: Principal): Promise<{ agentId: string; wallet: Address }> {
    return walletOf(await requireAgent(db, principal));
  }

  function walletOf(agent: AgentRow): { agentId: string; wallet: Address } {
    if (!agent.wallet_address) throw problem('WALLET_NOT_BOUND', 'creating markets needs a bound wallet: it signs the factory transaction (POST /keys/bind-wallet)');
    return { agentId: agent.id, wallet: getAddress(agent.wallet_address) };
  }

  async function charges(terms: MarketTerms): Promise<Charges> {
    if (terms.pricingModel === 'ORDERBOOK' || terms.collateral === 'PLAY') {
      // Play money: the order-book factory takes no subsidy and no bond.
      return {
        outcomeCount: 2,
        factory: chain.lane().orderbookFactory,
        subsidy: { token: PLAY_MONEY.token, symbol: PLAY_MONEY.symbol, amount: '0' },
        bond: { token: tokenOf('PM'), symbol: 'PM', amount: '0' },
      };
    }
    const factory = factoryFor(terms.outcomes.length);
    const [subsidy, bond] = (await chain.guard(() => chain.client.readContract({ address: factory, abi: factoryAbi, functionName: 'quoteCreation', args: [BigInt(terms.liquidity)] }))) as readonly [bigint, bigint];
    return {
      outcomeCount: terms.outcomes.length,
      factory,
      subsidy: { token: tokenOf(terms.collateral), symbol: terms.collateral, amount: subsidy.toString() },
      bond: { token: tokenOf('PM'), symbol: 'PM', amount: bond.toString() },
    };
  }

  /** What the factory will pull, per token, against what the creator has approved and holds. */
  async function readiness(owner: Address, c: Charges) {
    const needs = new Map<Address, { symbol: string; amount: bigint }>();
    const add = (token: Address, symbol: string, amount: bigint) => {
      const prev = needs.get(token);
      needs.set(token, { symbol, amount: (prev?.amount ?? 0n) + amount });
    };
    if (BigInt(c.subsidy.amount) > 0n) add(c.subsidy.token, c.subsidy.symbol, BigInt(c.subsidy.amount));
    if (BigInt(c.bond.amount) > 0n) add(c.bond.token, 'PM', BigInt(c.bond.amount));
    const approvalsMissing: CreationApproval[] = [];
    const balancesShort: PreflightResult['balancesShort'] = [];
    for (const [token, need] of needs) {
      const [allowance, balance] = await chain.guard(() =>
        Promise.all([
          chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, c.factory] }),
          chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
        ]),
      );
      if (allowance < need.amount) approvalsMissing.push({ kind: 'erc20_approve', reason: 'create_market', chainId: chain.chainId, token, spender: c.factory, amount: need.amount.toString() });
      if (balance < need.amount) balancesShort.push({ token, symbol: need.symbol, required: need.amount.toString(), balance: balance.toString() });
    }
    return { approvalsMissing, balancesShort };
  }

  async function problemsOf(terms: MarketTerms, creator: string): Promise<{ problems: TermsProblem[]; live: number }> {
    const live = await deps.countLive(creator);
    return { problems: checkTerms(terms, { now: clock.now(), minLiquidity: terms.collateral === 'PLAY' ? 0n : MIN_LIQUIDITY[terms.collateral], liveMarkets: live }), live };
  }

  async function existingByExternalId(creator: string, externalId: string | null) {
    if (externalId === null) return { market: null, negotiation: null };
    const market = await db.selectFrom('markets').selectAll().where('chain_id', '=', chain.chainId).where('creator', '=', creator).where('external_id', '=', externalId).executeTakeFirst();
    const negotiation = await db.selectFrom('negotiations').selectAll().where('creator', '=', creator).where('external_id', '=', externalId).where('status', '<>', 'rejected').executeTakeFirst();
    return { market: market ?? null, negotiation: negotiation ?? null };
  }

  /** The agent's own negotiation (another agent's is as unknown as a missing one), with the agent. */
  async function loadWithAgent(principal: Principal, id: string): Promise<{ row: NegotiationRow; agent: AgentRow }> {
    const agent = await requireAgent(db, principal);
    const row = await db.selectFrom('negotiations').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.agent_id !== agent.id) throw problem('NEGOTIATION_NOT_FOUND', `negotiation ${id} not found`);
    return { row, agent };
  }

  const load = async (principal: Principal, id: string): Promise<NegotiationRow> => (await loadWithAgent(principal, id)).row;

  const expired = (row: NegotiationRow) => row.status !== 'deployed' && row.expires_at.getTime() <= clock.now().getTime();

  async function transition(row: NegotiationRow, from: readonly NegotiationRow['status'][], to: NegotiationRow['status']): Promise<NegotiationRow> {
    if (expired(row)) throw problem('NEGOTIATION_EXPIRED', `negotiation ${row.id} expired at ${row.expires_at.toISOString()}; propose again`);
    if (row.status === to) return row;
    if (!from.includes(row.status)) throw problem('NEGOTIATION_STATE', `negotiation ${row.id} is ${row.status}; this step needs ${from.join(' or ')}`);
    const updated = await db.updateTable('negotiations').set({ status: to, updated_at: clock.now() }).where('id', '=', row.id).where('status', '=', row.status).returningAll().executeTakeFirst();
    if (!updated) throw problem('NEGOTIATION_STATE', `negotiation ${row.id} changed while this step ran; read it again`);
    return updated;
  }

  /**
   * ORDERBOOK: the factory's MarketCreated of this creator and questionHash registers the market, unconfirmed
   * until the indexer reads the same log (the registration code is shared with it: orderbook/markets.ts).
   */
  async function commitOrderBook(row: NegotiationRow, receipt: TransactionReceipt) {
    const factory = chain.lane().orderbookFactory.toLowerCase();
    const block = await chain.guard(() => chain.client.getBlock({ blockHash: receipt.blockHash }));
    const created = orderBookCreationsIn(receipt, { chainId: chain.chainId, factory, blockTime: new Date(Number(block.timestamp) * 1000) }).find(
      (c) => c.creator === row.creator && c.questionHash === row.question_hash,
    );
    if (!created) throw problem('DEPLOY_TX_MISMATCH', `transaction ${receipt.transactionHash} created no order-book market of this negotiation (factory ${factory}, creator ${row.creator}, questionHash ${row.question_hash})`);
    const market = await db.transaction().execute(async (trx) => {
      await registerOrderBookMarket(trx, clock, created, { confirmed: false, negotiationId: row.id });
      // Also when the indexer registered it first (a creation it read before this commit).
      await trx.updateTable('negotiations').set({ status: 'deployed', market_address: created.address, deploy_tx_hash: receipt.transactionHash, updated_at: clock.now() }).where('id', '=', row.id).execute();
      return trx.selectFrom('markets').selectAll().where('chain_id', '=', chain.chainId).where('address', '=', created.address).executeTakeFirstOrThrow();
    });
    deps.events.notify();
    indexer.kick();
    const negotiation = await db.selectFrom('negotiations').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    return { negotiation, market };
  }

  return {
    async preflight(principal, terms) {
      const { wallet: creator } = await wallet(principal);
      const lower = creator.toLowerCase();
      const existing = await existingByExternalId(lower, terms.externalId);
      const { problems, live } = await problemsOf(terms, lower);
      const c = await charges(terms);
      const { approvalsMissing, balancesShort } = await readiness(creator, c);
      return {
        ok: problems.length === 0 && existing.market === null,
        problems,
        questionHash: questionHash(terms, chain.chainId),
        charges: c,
        approvalsMissing,
        balancesShort,
        liveMarkets: { count: live, max: MAX_LIVE_MARKETS_PER_CREATOR },
        existingMarket: existing.market,
        existingNegotiationId: existing.negotiation?.id ?? null,
      };
    },

    async propose(principal, terms) {
      const { agentId, wallet: creator } = await wallet(principal);
      const lower = creator.toLowerCase();
      const existing = await existingByExternalId(lower, terms.externalId);
      if (existing.negotiation) return { negotiation: existing.negotiation, existing: true };
      const { problems } = await problemsOf(terms, lower);
      const blocking = problems.filter((p) => p.counter === undefined);
      if (blocking.some((p) => p.code === 'LIVE_MARKET_CAP_REACHED')) throw problem('LIVE_MARKET_CAP_REACHED', blocking[0]!.message);
      if (blocking.length > 0) throw problem('TERMS_REJECTED', blocking.map((p) => p.message).join('; '), { errors: blocking.map((p) => ({ path: `body.${p.field}`, message: p.message })) });
      const countered = counterTerms(terms, problems);
      const final = countered?.terms ?? terms;
      const now = clock.now();
      const row = {
        id: randomUUID(),
        agent_id: agentId,
        creator: lower,
        chain_id: chain.chainId,
        status: countered ? ('countered' as const) : ('proposed' as const),
        external_id: terms.externalId,
        proposed_terms: JSON.stringify(terms),
        terms: JSON.stringify(final),
        counter: countered ? JSON.stringify(countered.changes) : null,
        question_hash: questionHash(final, chain.chainId),
        created_at: now,
        updated_at: now,
        expires_at: new Date(now.getTime() + NEGOTIATION_TTL_MS),
      };
      try {
        const inserted = await db.transaction().execute(async (trx) => {
          const saved = await trx.insertInto('negotiations').values(row).returningAll().executeTakeFirstOrThrow();
          if (countered) await appendEvent(trx, clock, { type: 'negotiation.countered', chainId: chain.chainId, agentId, payload: { negotiationId: saved.id, changes: countered.changes, terms: final, next: deps.settleLinks(saved.id) } });
          return saved;
        });
        if (countered) deps.events.notify();
        return { negotiation: inserted, existing: false };
      } catch (err) {
        // A concurrent propose with the same externalId won the unique index: answer its negotiation.
        if (!isUniqueViolation(err)) throw err;
        const again = await existingByExternalId(lower, terms.externalId);
        if (!again.negotiation) throw err;
        return { negotiation: again.negotiation, existing: true };
      }
    },

    accept: async (principal, id) => transition(await load(principal, id), ['proposed', 'countered'], 'accepted'),
    reject: async (principal, id) => transition(await load(principal, id), ['proposed', 'countered'], 'rejected'),
    get: load,

    async prepareDeploy(principal, id) {
      const { row, agent } = await loadWithAgent(principal, id);
      if (expired(row)) throw problem('NEGOTIATION_EXPIRED', `negotiation ${id} expired at ${row.expires_at.toISOString()}; propose again`);
      if (row.status !== 'accepted') throw problem('NEGOTIATION_STATE', `negotiation ${id} is ${row.status}; prepare-deploy needs accepted`);
      const { wallet: creator } = walletOf(agent);
      if (creator.toLowerCase() !== row.creator) throw problem('NEGOTIATION_STATE', `the agent's wallet changed since the proposal (was ${row.creator}); propose again`);
      const terms = row.terms as unknown as MarketTerms;
      // Time has passed since the proposal: the close time or the cap may no longer hold.
      const { problems } = await problemsOf(terms, row.creator);
      if (problems.length > 0) {
        const cap = problems.find((p) => p.code === 'LIVE_MARKET_CAP_REACHED');
        if (cap) throw problem('LIVE_MARKET_CAP_REACHED', cap.message);
        throw problem('TERMS_REJECTED', `the accepted terms no longer hold: ${problems.map((p) => p.message).join('; ')}; propose again`, { errors: problems.map((p) => ({ path: `terms.${p.field}`, message: p.message })) });
      }
      const c = await charges(terms);
      const { approvalsMissing, balancesShort } = await readiness(creator, c);
      if (terms.pricingModel === 'ORDERBOOK') {
        // Clones are created with CREATE: the next market sits at the factory's next nonce.
        const nonce = await chain.guard(() => chain.client.getTransactionCount({ address: c.factory, blockTag: 'pending' }));
        const data = encodeFunctionData({ abi: orderbookFactoryAbi, functionName: 'createMarket', args: [row.question_hash as Hex, BigInt(Date.parse(terms.closeTime) / 1000), RESOLUTION_WINDOW_SECONDS] });
        return { negotiation: row, charges: c, approvalsMissing, balancesShort, predictedMarket: getContractAddress({ from: c.factory, nonce: BigInt(nonce) }), transaction: { chainId: chain.chainId, from: creator, to: c.factory, data, value: '0' } };
      }
      const predictedMarket = (await chain.guard(() => chain.client.readContract({ address: c.factory, abi: factoryAbi, functionName: 'nextMarketAddress', args: [creator] }))) as Address;
      const data = encodeFunctionData({
        abi: factoryAbi,
        functionName: 'createMarket',
        // maxBond = the bond charged above: a bond raised before the creator sends reverts (BondAboveMax), never takes more.
        args: [tokenOf(terms.collateral as 'USDC' | 'PM'), row.question_hash as Hex, BigInt(Date.parse(terms.closeTime) / 1000), RESOLUTION_WINDOW_SECONDS, BigInt(terms.liquidity), LMSR_FEES.protocolFeeBps, terms.creatorFeeBps, BigInt(c.bond.amount)],
      });
      return { negotiation: row, charges: c, approvalsMissing, balancesShort, predictedMarket, transaction: { chainId: chain.chainId, from: creator, to: c.factory, data, value: '0' } };
    },

    async commitDeploy(principal, id, txHash) {
      const row = await load(principal, id);
      if (row.status === 'deployed' && row.market_address) {
        if (row.deploy_tx_hash?.toLowerCase() !== txHash.toLowerCase()) throw problem('NEGOTIATION_STATE', `negotiation ${id} is already deployed by ${row.deploy_tx_hash}`);
        const market = await db.selectFrom('markets').selectAll().where('chain_id', '=', row.chain_id).where('address', '=', row.market_address).executeTakeFirstOrThrow();
        return { negotiation: row, market };
      }
      if (row.status !== 'accepted') throw problem('NEGOTIATION_STATE', `negotiation ${id} is ${row.status}; commit-deploy needs accepted`);
      const receipt = await chain.receiptOf(txHash);
      if (!receipt) {
        const pending = await chain.transactionOf(txHash);
        if (pending) throw problem('DEPLOY_TX_PENDING', `transaction ${txHash} is not mined yet; retry when it is`, { headers: { 'Retry-After': '2' } });
        throw problem('NOT_FOUND', `transaction ${txHash} is not known to chain ${chain.chainId}`);
      }
      if (receipt.status !== 'success') throw problem('DEPLOY_TX_REVERTED', `transaction ${txHash} reverted; nothing was created (check approvals and balances with prepare-deploy)`);
      const terms = row.terms as unknown as MarketTerms;
      if (terms.pricingModel === 'ORDERBOOK') return commitOrderBook(row, receipt);
      const factory = factoryFor(terms.outcomes.length).toLowerCase();
      const created = parseEventLogs({ abi: factoryAbi, logs: receipt.logs, eventName: 'MarketCreated' }).find(
        (l) => l.address.toLowerCase() === factory && (l.args as { creator: string }).creator.toLowerCase() === row.creator && (l.args as { questionHash: string }).questionHash.toLowerCase() === row.question_hash,
      );
      if (!created) throw problem('DEPLOY_TX_MISMATCH', `transaction ${txHash} created no market of this negotiation (factory ${factory}, creator ${row.creator}, questionHash ${row.question_hash})`);
      const a = created.args as unknown as MarketCreatedArgs & { market: Address };
      const [block, state] = await chain.guard(() => Promise.all([chain.client.getBlock({ blockHash: receipt.blockHash }), readMarketState(chain.client, a.market, receipt.blockNumber)]));
      const market = await db.transaction().execute(async (trx) => {
        const created = createdMarketOf(
          { ...a, creator: row.creator },
          { chainId: chain.chainId, factory, collateralSymbol: terms.collateral, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, txHash, blockTime: new Date(Number(block.timestamp) * 1000) },
          state,
        );
        await registerMarket(trx, clock, created, { confirmed: false });
        await trx.updateTable('negotiations').set({ status: 'deployed', market_address: a.market.toLowerCase(), deploy_tx_hash: txHash, updated_at: clock.now() }).where('id', '=', row.id).execute();
        return trx.selectFrom('markets').selectAll().where('chain_id', '=', chain.chainId).where('address', '=', a.market.toLowerCase()).executeTakeFirstOrThrow();
      });
      deps.events.notify();
      indexer.kick();
      const negotiation = await db.selectFrom('negotiations').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
      return { negotiation, market };
    },
  };
}
