/**
 * The ledger's balance rules (docs/ledger.md): every operation becomes a list of movements of one
 * asset from one account to another — the same list the LedgerCommitment contract emits as
 * TransferSingle events in legacy mode — and applying movements keeps every asset summing to zero
 * with the supply account (the zero address) holding the negative of everything else. Pure.
 */
import { problem } from '../error-codes.ts';
import {
  BPS,
  COLLATERAL_ASSET,
  CREDIT_REASONS,
  MATCH_KINDS,
  MAX_MARKET_ID,
  outcomeAsset,
  SUPPLY_ACCOUNT,
  type Account,
  type BalanceEntry,
  type Credit,
  type LedgerOperation,
  type Match,
} from './types.ts';

/** Collateral base units per share per basis point: SHARE_VALUE / BPS. */
const UNITS_PER_BPS = 100n;
const UINT128_MAX = (1n << 128n) - 1n;
const INT128_MIN = -(1n << 127n);
const INT128_MAX = (1n << 127n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;
const ADDRESS = /^0x[0-9a-f]{40}$/;

/** One movement of `value` (> 0) of asset `id` from `from` to `to`, as a TransferSingle event carries it. */
export interface Movement {
  from: Account;
  to: Account;
  id: bigint;
  value: bigint;
}

/** Collateral base units `shares` cost at `priceBps`: shares × priceBps × 100. */
export const costOf = (shares: bigint, priceBps: bigint | number): bigint => shares * BigInt(priceBps) * UNITS_PER_BPS;

const REASONS = new Set<number>(Object.values(CREDIT_REASONS));

/** Throws INVALID_LEDGER_OPERATION when an operation is outside what the contract accepts. */
export function validateOperation(op: LedgerOperation): void {
  const bad = (detail: string) => problem('INVALID_LEDGER_OPERATION', detail);
  if (op.type === 'credit') {
    const c = op.credit;
    if (!ADDRESS.test(c.account) || c.account === SUPPLY_ACCOUNT) throw bad('credit account must be a lowercase non-zero address');
    if (c.id < 0n || c.id > UINT256_MAX) throw bad('credit asset id must be a uint256');
    if (c.delta < INT128_MIN || c.delta > INT128_MAX) throw bad('credit delta must be an int128');
    if (!REASONS.has(c.reason)) throw bad(`credit reason ${c.reason} is not a known reason code`);
    return;
  }
  const m = op.match;
  if (!ADDRESS.test(m.maker) || !ADDRESS.test(m.taker) || m.maker === SUPPLY_ACCOUNT || m.taker === SUPPLY_ACCOUNT) {
    throw bad('maker and taker must be lowercase non-zero addresses');
  }
  if (m.maker === m.taker) throw bad('maker and taker must differ');
  if (m.marketId < 1n || m.marketId > MAX_MARKET_ID) throw bad('marketId must be 1..2^64-1');
  if (m.side !== 0 && m.side !== 1) throw bad('side must be 0 or 1');
  if (!(Object.values(MATCH_KINDS) as number[]).includes(m.kind)) throw bad('kind must be 0, 1, 2 or 3');
  if (!Number.isInteger(m.priceBps) || m.priceBps < 1 || m.priceBps > 9999) throw bad('priceBps must be 1..9999');
  if (m.shares <= 0n || m.shares > UINT128_MAX) throw bad('shares must be 1..2^128-1');
  if (m.fee < 0n || m.fee > UINT128_MAX) throw bad('fee must be 0..2^128-1');
}

/**
 * The movements of one operation, in the order the contract emits them; zero values are left out.
 * Fees go to `feeAccount` (the ledger contract's operator).
 */
export function movementsOf(op: LedgerOperation, feeAccount: Account): Movement[] {
  const out: Movement[] = [];
  const move = (from: Account, to: Account, id: bigint, value: bigint) => {
    if (value > 0n) out.push({ from, to, id, value });
  };
  if (op.type === 'credit') {
    const c: Credit = op.credit;
    if (c.delta > 0n) move(SUPPLY_ACCOUNT, c.account, c.id, c.delta);
    else move(c.account, SUPPLY_ACCOUNT, c.id, -c.delta);
    return out;
  }
  const m: Match = op.match;
  const other = (1 - m.side) as 0 | 1;
  const own = outcomeAsset(m.marketId, m.side);
  const opposite = outcomeAsset(m.marketId, other);
  const makerCost = costOf(m.shares, m.priceBps);
  const takerCost = costOf(m.shares, BPS - BigInt(m.priceBps));
  switch (m.kind) {
    case MATCH_KINDS.TRANSFER:
      move(m.maker, m.taker, own, m.shares);
      move(m.taker, m.maker, COLLATERAL_ASSET, makerCost);
      break;
    case MATCH_KINDS.MINT:
      move(m.maker, SUPPLY_ACCOUNT, COLLATERAL_ASSET, makerCost);
      move(m.taker, SUPPLY_ACCOUNT, COLLATERAL_ASSET, takerCost);
      move(SUPPLY_ACCOUNT, m.maker, own, m.shares);
      move(SUPPLY_ACCOUNT, m.taker, opposite, m.shares);
      break;
    case MATCH_KINDS.TAKER_SELLS:
      move(m.taker, m.maker, own, m.shares);
      move(m.maker, m.taker, COLLATERAL_ASSET, makerCost);
      break;
    case MATCH_KINDS.MERGE:
      move(m.maker, SUPPLY_ACCOUNT, own, m.shares);
      move(m.taker, SUPPLY_ACCOUNT, opposite, m.shares);
      move(SUPPLY_ACCOUNT, m.maker, COLLATERAL_ASSET, makerCost);
      move(SUPPLY_ACCOUNT, m.taker, COLLATERAL_ASSET, takerCost);
      break;
  }
  move(m.taker, feeAccount, COLLATERAL_ASSET, m.fee);
  return out;
}

/**
 * Balances per (account, asset). `apply` is all or nothing per operation: it refuses
 * (LEDGER_INSUFFICIENT_BALANCE) any operation that would leave an account other than the supply
 * account negative, and then changes nothing.
 *
 * Kept by account, then by asset id (a bigint is a Map key by value): a key made as a string of both cost ~0.3 µs,
 * six of them a movement, which made replaying a batch of 256 operations ~4.4 ms (the batcher replays each batch
 * twice; docs/orderbook.md, session 26).
 */
export class LedgerBalances {
  private readonly balances = new Map<Account, Map<bigint, bigint>>();

  constructor(entries: Iterable<BalanceEntry> = []) {
    for (const e of entries) if (e.balance !== 0n) this.set(e.account, e.assetId, e.balance);
  }

  get(account: Account, assetId: bigint): bigint {
    return this.balances.get(account)?.get(assetId) ?? 0n;
  }

  /** Applies one operation; returns the new absolute balance of every (account, asset) it touched. */
  apply(op: LedgerOperation, feeAccount: Account): BalanceEntry[] {
    validateOperation(op);
    return this.applyMovements(movementsOf(op, feeAccount));
  }

  /**
   * Applies movements as one unit (used by replay of legacy events too); answers the touched balances in the order
   * they were first touched (a movement's sender before its receiver).
   */
  applyMovements(movements: readonly Movement[]): BalanceEntry[] {
    const next: BalanceEntry[] = [];
    const touched = new Map<Account, Map<bigint, BalanceEntry>>();
    const entryOf = (account: Account, id: bigint): BalanceEntry => {
      let own = touched.get(account);
      if (!own) touched.set(account, (own = new Map()));
      let e = own.get(id);
      if (!e) {
        e = { account, assetId: id, balance: this.get(account, id) };
        own.set(id, e);
        next.push(e);
      }
      return e;
    };
    for (const mv of movements) {
      const from = entryOf(mv.from, mv.id);
      from.balance -= mv.value;
      const to = entryOf(mv.to, mv.id);
      to.balance += mv.value;
    }
    for (const e of next) {
      if (e.account !== SUPPLY_ACCOUNT && e.balance < 0n) {
        throw problem('LEDGER_INSUFFICIENT_BALANCE', `account ${e.account} would hold ${e.balance} of asset ${e.assetId}`, {
          extensions: { account: e.account, assetId: e.assetId.toString(), shortBy: (-e.balance).toString() },
        });
      }
    }
    for (const e of next) this.set(e.account, e.assetId, e.balance);
    return next.map((e) => ({ ...e }));
  }

  /** Sets a balance; zero removes it. */
  private set(account: Account, assetId: bigint, balance: bigint): void {
    let own = this.balances.get(account);
    if (balance === 0n) {
      own?.delete(assetId);
      if (own?.size === 0) this.balances.delete(account);
      return;
    }
    if (!own) this.balances.set(account, (own = new Map()));
    own.set(assetId, balance);
  }

  /** Every non-zero balance, the supply account included. */
  entries(): BalanceEntry[] {
    return [...this.balances].flatMap(([account, own]) => [...own].map(([assetId, balance]) => ({ account, assetId, balance })));
  }

  /** Sum of one asset over every account; 0 for every asset by construction. */
  total(assetId: bigint): bigint {
    let sum = 0n;
    for (const own of this.balances.values()) sum += own.get(assetId) ?? 0n;
    return sum;
  }
}
