/**
 * The Merkle tree of the ledger's balances (spec "Ledger contract", Merkle root; docs/ledger-merkle.md):
 * one leaf per (account, asset) with a non-zero balance, levels paired left to right, an odd last node
 * promoted unchanged. Hashes raw bytes with the single-block keccak256 of keccak.ts (every preimage fits one
 * block; about 4x faster than noble's general keccak_256) and keeps each level in one flat buffer,
 * so building and updating cost little more than the keccak calls themselves. Pure: no I/O.
 */
import { keccak256SingleBlock } from './keccak.ts';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import type { Hex } from 'viem';
import { SUPPLY_ACCOUNT, type Account, type BalanceEntry } from './types.ts';

/** The leaf encoding, as published next to proofs (GET /api/v1/ledger/proof/{account}). */
export const LEAF_ENCODING = 'keccak256(keccak256(abi.encodePacked(address account, uint256 assetId, int256 balance)))';

/** Root of a tree without leaves: 32 zero bytes. */
export const EMPTY_LEDGER_ROOT: Hex = `0x${'00'.repeat(32)}`;

const HASH = 32;
const LEAF_PREIMAGE = 20 + 32 + 32;
const MAX_UINT256 = (1n << 256n) - 1n;
const MIN_INT256 = -(1n << 255n);
const MAX_INT256 = (1n << 255n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;
const MIN_INT64 = -(1n << 63n);
const ACCOUNT_PATTERN = /^0x[0-9a-f]{40}$/;
const HASH_PATTERN = /^0x[0-9a-fA-F]{64}$/;

// One preimage buffer per kind, reused by every hash of this module (single-threaded, never re-entered).
const leafPreimage = new Uint8Array(LEAF_PREIMAGE);
const leafView = new DataView(leafPreimage.buffer);
const nodePreimage = new Uint8Array(2 * HASH);
const innerHash = new Uint8Array(HASH);

/** Throws unless `entry` can be a leaf: lowercase 20-byte account, uint256 asset id, int256 balance. */
function checkEntry(entry: BalanceEntry, what: string): void {
  if (typeof entry.account !== 'string' || !ACCOUNT_PATTERN.test(entry.account)) {
    throw new RangeError(`${what}: account '${String(entry.account)}' is not a lowercase 0x-prefixed 20-byte address`);
  }
  if (typeof entry.assetId !== 'bigint' || entry.assetId < 0n || entry.assetId > MAX_UINT256) {
    throw new RangeError(`${what}: asset id ${String(entry.assetId)} of ${entry.account} is not a uint256 bigint`);
  }
  if (typeof entry.balance !== 'bigint' || entry.balance < MIN_INT256 || entry.balance > MAX_INT256) {
    throw new RangeError(`${what}: balance ${String(entry.balance)} of ${entry.account}/${entry.assetId} is not an int256 bigint`);
  }
}

const hexNibble = (code: number): number => (code <= 0x39 ? code - 0x30 : code - 0x57); // '0'-'9', 'a'-'f' (checked lowercase)

/** Writes the 32-byte big-endian two's complement of `value` (already range-checked) at `offset`. */
function writeWord(offset: number, value: bigint): void {
  if (value >= 0n && value <= MAX_UINT64) {
    leafPreimage.fill(0, offset, offset + 24);
    leafView.setBigUint64(offset + 24, value);
  } else if (value < 0n && value >= MIN_INT64) {
    leafPreimage.fill(0xff, offset, offset + 24);
    leafView.setBigInt64(offset + 24, value);
  } else {
    const word = BigInt.asUintN(256, value);
    for (let i = 0; i < 4; i++) leafView.setBigUint64(offset + 8 * i, BigInt.asUintN(64, word >> BigInt(192 - 64 * i)));
  }
}

/** keccak256(keccak256(abi.encodePacked(address, uint256, int256))) of a checked entry, written into `out` at `offset`. */
function hashLeafInto(account: string, assetId: bigint, balance: bigint, out: Uint8Array, offset: number): void {
  for (let i = 0; i < 20; i++) leafPreimage[i] = (hexNibble(account.charCodeAt(2 + 2 * i)) << 4) | hexNibble(account.charCodeAt(3 + 2 * i));
  writeWord(20, assetId);
  writeWord(52, balance);
  keccak256SingleBlock(leafPreimage, 0, LEAF_PREIMAGE, innerHash, 0);
  keccak256SingleBlock(innerHash, 0, HASH, out, offset);
}

/** OpenZeppelin's commutative hash of the 32-byte nodes a[ai..] and b[bi..], written into out[oi..]. */
function hashPairInto(a: Uint8Array, ai: number, b: Uint8Array, bi: number, out: Uint8Array, oi: number): void {
  let aFirst = true;
  for (let i = 0; i < HASH; i++) {
    const x = a[ai + i]!;
    const y = b[bi + i]!;
    if (x !== y) {
      aFirst = x < y;
      break;
    }
  }
  if (aFirst) {
    nodePreimage.set(a.subarray(ai, ai + HASH), 0);
    nodePreimage.set(b.subarray(bi, bi + HASH), HASH);
  } else {
    nodePreimage.set(b.subarray(bi, bi + HASH), 0);
    nodePreimage.set(a.subarray(ai, ai + HASH), HASH);
  }
  keccak256SingleBlock(nodePreimage, 0, 2 * HASH, out, oi);
}

const toHex = (bytes: Uint8Array): Hex => `0x${bytesToHex(bytes)}`;

/** Leaf order: account ascending (lowercase hex = 160-bit numeric order), then asset id ascending. */
function compareKeys(aAccount: string, aAsset: bigint, bAccount: string, bAsset: bigint): number {
  if (aAccount !== bAccount) return aAccount < bAccount ? -1 : 1;
  return aAsset === bAsset ? 0 : aAsset < bAsset ? -1 : 1;
}
const compareEntries = (a: BalanceEntry, b: BalanceEntry): number => compareKeys(a.account, a.assetId, b.account, b.assetId);

/** Number of nodes in each level, leaves first, up to the one-node top; [] for no leaves. */
function levelSizes(leaves: number): number[] {
  if (leaves === 0) return [];
  const sizes = [leaves];
  for (let len = leaves; len > 1; ) {
    len = (len + 1) >> 1;
    sizes.push(len);
  }
  return sizes;
}

/** Node j of `level` from its children in `below` (of `belowLen` nodes): a pair hash, or the promoted odd last child. */
function computeNode(below: Uint8Array, belowLen: number, level: Uint8Array, j: number): void {
  const left = 2 * j;
  if (left + 1 < belowLen) hashPairInto(below, left * HASH, below, (left + 1) * HASH, level, j * HASH);
  else level.set(below.subarray(left * HASH, left * HASH + HASH), j * HASH);
}

/**
 * The leaf of one balance: keccak256(keccak256(abi.encodePacked(address account, uint256 assetId,
 * int256 balance))), 0x-prefixed lowercase. `assetId` is the ledger's asset id (types.ts); `balance`
 * is in the asset's base units, two's complement when negative.
 */
export function leafHash(account: Account, assetId: bigint, balance: bigint): Hex {
  checkEntry({ account, assetId, balance }, 'leafHash');
  const out = new Uint8Array(HASH);
  hashLeafInto(account, assetId, balance, out, 0);
  return toHex(out);
}

/** leafHash of a balance entry. */
export const ledgerLeaf = (entry: BalanceEntry): Hex => leafHash(entry.account, entry.assetId, entry.balance);

/**
 * OpenZeppelin MerkleProof.verify semantics: fold the proof's 32-byte siblings into `leaf` bottom-up with
 * the commutative (sorted-pair) keccak hash and compare the result with `root`. False for malformed input.
 */
export function verifyProof(proof: readonly Hex[], root: Hex, leaf: Hex): boolean {
  if (!HASH_PATTERN.test(root) || !HASH_PATTERN.test(leaf) || !proof.every((p) => HASH_PATTERN.test(p))) return false;
  const computed = hexToBytes(leaf.slice(2));
  for (const sibling of proof) hashPairInto(computed, 0, hexToBytes(sibling.slice(2)), 0, computed, 0);
  return toHex(computed) === root.toLowerCase();
}

/**
 * The ledger's Merkle tree over (account, asset) balances. Leaves are ordered by account then asset id;
 * each level is one flat buffer of 32-byte nodes. Mutable through `apply`.
 */
export class LedgerMerkleTree {
  /** Leaf i's entry (account, asset id, balance in the asset's base units), in leaf order. */
  private leaves: BalanceEntry[];
  /** levels[0] holds the leaf hashes, levels[last] the 32-byte root; [] when there are no leaves. */
  private levels: Uint8Array[];

  private constructor(leaves: BalanceEntry[], levels: Uint8Array[]) {
    this.leaves = leaves;
    this.levels = levels;
  }

  /**
   * Builds the tree of a balance snapshot. Balances are in each asset's base units. Entries of the supply
   * account (zero address) and zero balances are skipped; an (account, asset) given twice, an account that
   * is not lowercase, an asset id outside uint256 or a balance outside int256 throws RangeError.
   * Cost: n log n to sort plus 3n − 1 keccak calls (2 per leaf, 1 per inner node).
   */
  static fromBalances(entries: Iterable<BalanceEntry>): LedgerMerkleTree {
    return runThrough(LedgerMerkleTree.buildSteps(entries, Infinity));
  }

  /**
   * `fromBalances` in steps: validated and sorted at the first step, then the generator pauses after every
   * `hashesPerStep` leaf or node hashes and returns the tree when done (a process elected to run the batcher builds the
   * committed tree while it serves requests: services/ledger/tree-turns.ts).
   */
  static *buildSteps(entries: Iterable<BalanceEntry>, hashesPerStep: number): Generator<void, LedgerMerkleTree, void> {
    let hashed = 0;
    const all: BalanceEntry[] = [];
    for (const e of entries) {
      checkEntry(e, 'fromBalances');
      all.push({ account: e.account, assetId: e.assetId, balance: e.balance });
    }
    all.sort(compareEntries);
    const leaves: BalanceEntry[] = [];
    for (let i = 0; i < all.length; i++) {
      const e = all[i]!;
      if (i > 0 && compareEntries(all[i - 1]!, e) === 0) throw new RangeError(`fromBalances: ${e.account}/${e.assetId} is given twice`);
      if (e.balance !== 0n && e.account !== SUPPLY_ACCOUNT) leaves.push(e);
    }
    const sizes = levelSizes(leaves.length);
    const levels = sizes.map((len) => new Uint8Array(len * HASH));
    const leafLevel = levels[0];
    if (leafLevel !== undefined) {
      for (let i = 0; i < leaves.length; i++) {
        const e = leaves[i]!;
        hashLeafInto(e.account, e.assetId, e.balance, leafLevel, i * HASH);
        if (++hashed % hashesPerStep === 0) yield;
      }
    }
    for (let d = 1; d < levels.length; d++) {
      const below = levels[d - 1]!;
      const level = levels[d]!;
      for (let j = 0; j < sizes[d]!; j++) {
        computeNode(below, sizes[d - 1]!, level, j);
        if (++hashed % hashesPerStep === 0) yield;
      }
    }
    return new LedgerMerkleTree(leaves, levels);
  }

  /**
   * An independent copy: `apply` on either leaves the other as it was. Cost: copying the leaves' array and every
   * level's buffer (2n × 32 bytes for n leaves), no hashing.
   */
  clone(): LedgerMerkleTree {
    return new LedgerMerkleTree(this.leaves.slice(), this.levels.map((level) => level.slice()));
  }

  /** Number of leaves: (account, asset) pairs with a non-zero balance, the supply account excluded. */
  get size(): number {
    return this.leaves.length;
  }

  /** The root as 0x-prefixed lowercase hex of 32 bytes; 32 zero bytes when there are no leaves. */
  root(): Hex {
    const top = this.levels[this.levels.length - 1];
    return top === undefined ? EMPTY_LEDGER_ROOT : toHex(top);
  }

  /** The leaves' entries (balances in base units) in leaf order: account, then asset id ascending. */
  *entries(): IterableIterator<BalanceEntry> {
    for (const e of this.leaves) yield { account: e.account, assetId: e.assetId, balance: e.balance };
  }

  /** Index of the leaf of (account, assetId), or −(insertion point) − 1 when there is none. */
  private search(account: string, assetId: bigint): number {
    let lo = 0;
    let hi = this.leaves.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.leaves[mid]!;
      const c = compareKeys(e.account, e.assetId, account, assetId);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -lo - 1;
  }

  /**
   * The proof of the leaf of (account, assetId): its siblings bottom-up, levels where the node is promoted
   * skipped, so OpenZeppelin's MerkleProof.verify(proof, root(), leaf) accepts it. Null when there is no such leaf.
   */
  proof(account: Account, assetId: bigint): Hex[] | null {
    const found = this.search(account, assetId);
    if (found < 0) return null;
    const proof: Hex[] = [];
    let i = found;
    for (let d = 0; d < this.levels.length - 1; d++) {
      const level = this.levels[d]!;
      const sibling = i ^ 1;
      if (sibling * HASH < level.length) proof.push(toHex(level.subarray(sibling * HASH, sibling * HASH + HASH)));
      i >>= 1;
    }
    return proof;
  }

  /** The leaf hash of (account, assetId) in this tree, or null when there is no such leaf. */
  leafOf(account: Account, assetId: bigint): Hex | null {
    const found = this.search(account, assetId);
    return found < 0 ? null : toHex(this.levels[0]!.subarray(found * HASH, found * HASH + HASH));
  }

  /** The balance (base units) of (account, assetId) in this tree: 0n when it has no leaf (and always for the supply account). */
  balanceOf(account: Account, assetId: bigint): bigint {
    const found = this.search(account, assetId);
    return found < 0 ? 0n : this.leaves[found]!.balance;
  }

  /** The leaves of one account (balances in base units), by asset id ascending; [] when it has none. */
  entriesOf(account: Account): BalanceEntry[] {
    // The account's first leaf sits where asset id 0 would: search returns it or its insertion point.
    const found = this.search(account, 0n);
    const out: BalanceEntry[] = [];
    for (let i = found >= 0 ? found : -found - 1; i < this.leaves.length && this.leaves[i]!.account === account; i++) {
      const e = this.leaves[i]!;
      out.push({ account: e.account, assetId: e.assetId, balance: e.balance });
    }
    return out;
  }

  /**
   * Sets the absolute balance (base units) of each touched (account, asset): a new value, a new leaf, or 0
   * to remove the leaf. Validated like fromBalances (an (account, asset) touched twice throws) before anything
   * changes; supply-account entries are ignored. Cost when only existing leaves change value: O(k log n)
   * keccak calls for k changes (the k paths). An insert or a removal shifts every later leaf, so every level
   * is rebuilt from the lowest insert/removal position p up: O(n − p) — about n − p node hashes (shifted
   * leaves keep their hashes, only the nodes above them are recomputed) plus 2 per new or changed leaf, and
   * O(n) memory copying when the leaf count changes. Afterwards the tree equals fromBalances of the
   * resulting balance set.
   */
  apply(changes: Iterable<BalanceEntry>): void {
    runThrough(this.applySteps(changes, Infinity));
  }

  /**
   * `apply` in steps: the generator pauses after every `hashesPerStep` leaf or node hashes, so a caller
   * can let other work run between steps (an insert into 100,000 leaves rehashes tens of thousands of nodes:
   * services/ledger/tree-turns.ts). The changes are validated at the first step, before anything changes. Until the
   * generator is done the tree is half updated: nothing may read it meanwhile (apply to a clone, then use the clone).
   */
  *applySteps(changes: Iterable<BalanceEntry>, hashesPerStep: number): Generator<void, void, void> {
    let hashed = 0;
    const touched: BalanceEntry[] = [];
    for (const c of changes) {
      checkEntry(c, 'apply');
      if (c.account !== SUPPLY_ACCOUNT) touched.push({ account: c.account, assetId: c.assetId, balance: c.balance });
    }
    touched.sort(compareEntries);
    for (let i = 1; i < touched.length; i++) {
      if (compareEntries(touched[i - 1]!, touched[i]!) === 0) throw new RangeError(`apply: ${touched[i]!.account}/${touched[i]!.assetId} is touched twice`);
    }

    // Classify against the current leaves, dropping no-ops. Positions ascend with the sorted keys.
    const effective: { entry: BalanceEntry; index: number; found: boolean }[] = [];
    let firstStructural = Infinity;
    for (const entry of touched) {
      const found = this.search(entry.account, entry.assetId);
      if (found >= 0) {
        if (this.leaves[found]!.balance === entry.balance) continue;
        if (entry.balance === 0n) firstStructural = Math.min(firstStructural, found);
        effective.push({ entry, index: found, found: true });
      } else if (entry.balance !== 0n) {
        firstStructural = Math.min(firstStructural, -found - 1);
        effective.push({ entry, index: -found - 1, found: false });
      }
    }
    if (effective.length === 0) return;

    const oldLeaves = this.leaves;
    const oldLevels = this.levels;
    const oldLeafLevel = oldLevels[0] ?? new Uint8Array(0);
    // Leaves below firstStructural keep their position; those that change value are rehashed along their paths.
    let dirty: number[] = [];
    let newLeaves = oldLeaves;
    let newLeafLevel = oldLeafLevel;
    let suffixStart = Infinity;

    if (firstStructural === Infinity) {
      for (const { entry, index } of effective) {
        oldLeaves[index] = entry;
        hashLeafInto(entry.account, entry.assetId, entry.balance, oldLeafLevel, index * HASH);
        dirty.push(index);
        if (++hashed % hashesPerStep === 0) yield;
      }
    } else {
      suffixStart = firstStructural;
      newLeaves = oldLeaves.slice(0, suffixStart);
      let inserts = 0;
      let removals = 0;
      for (const { entry, found } of effective) {
        if (!found) inserts++;
        else if (entry.balance === 0n) removals++;
      }
      const newSize = oldLeaves.length + inserts - removals;
      newLeafLevel = new Uint8Array(newSize * HASH);
      newLeafLevel.set(oldLeafLevel.subarray(0, suffixStart * HASH));
      let from = suffixStart; // next old leaf to carry over
      for (const { entry, index, found } of effective) {
        if (index < suffixStart) {
          // A value change below the first insert/removal: same position, rehash its path.
          newLeaves[index] = entry;
          hashLeafInto(entry.account, entry.assetId, entry.balance, newLeafLevel, index * HASH);
          dirty.push(index);
          if (++hashed % hashesPerStep === 0) yield;
          continue;
        }
        newLeafLevel.set(oldLeafLevel.subarray(from * HASH, index * HASH), newLeaves.length * HASH);
        for (let i = from; i < index; i++) newLeaves.push(oldLeaves[i]!);
        from = found ? index + 1 : index;
        if (entry.balance !== 0n) {
          hashLeafInto(entry.account, entry.assetId, entry.balance, newLeafLevel, newLeaves.length * HASH);
          newLeaves.push(entry);
          if (++hashed % hashesPerStep === 0) yield;
        }
      }
      newLeafLevel.set(oldLeafLevel.subarray(from * HASH), newLeaves.length * HASH);
      for (let i = from; i < oldLeaves.length; i++) newLeaves.push(oldLeaves[i]!);
    }

    const sizes = levelSizes(newLeaves.length);
    const levels: Uint8Array[] = sizes.length === 0 ? [] : [newLeafLevel];
    for (let d = 1; d < sizes.length; d++) {
      const len = sizes[d]!;
      const below = levels[d - 1]!;
      const start = Math.min(len, Math.floor(suffixStart / 2 ** d)); // nodes below `start` cover unchanged-position leaves only
      const old = oldLevels[d];
      let level: Uint8Array;
      if (old !== undefined && old.length === len * HASH) level = old;
      else {
        level = new Uint8Array(len * HASH);
        if (old !== undefined) level.set(old.subarray(0, start * HASH));
      }
      const parents: number[] = [];
      for (const i of dirty) {
        const j = i >> 1;
        if (j < start && parents[parents.length - 1] !== j) parents.push(j);
      }
      for (const j of parents) {
        computeNode(below, sizes[d - 1]!, level, j);
        if (++hashed % hashesPerStep === 0) yield;
      }
      for (let j = start; j < len; j++) {
        computeNode(below, sizes[d - 1]!, level, j);
        if (++hashed % hashesPerStep === 0) yield;
      }
      dirty = parents;
      levels.push(level);
    }
    this.leaves = newLeaves;
    this.levels = levels;
  }
}

/** What a generator of steps returns, its steps run through at once. */
function runThrough<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
