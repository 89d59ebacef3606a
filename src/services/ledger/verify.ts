/**
 * The independent replay verifier (`svc ledger verify`): rebuilds every balance from chain data alone —
 * legacy batches from their TransferSingle/TransferBatch events (or, without events, from the
 * commitBatch calldata) under the legacy rules, journal batches by decoding their PMJ5 payload and
 * applying each operation once, supplements applying nothing — and checks after every batch that the
 * Merkle root, and the journal commitment chain, equal what the contract accepted. It never reads our
 * database. docs/ledger.md "Verifying".
 */
import { decodeEventLog, decodeFunctionData, keccak256, type Address, type Hex, type Log, type PublicClient } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import { isProblemError } from '../../core/errors.ts';
import { LedgerBalances, movementsOf, type Movement } from '../../core/ledger/engine.ts';
import { decodeJournal, nextJournalCommitment } from '../../core/ledger/journal.ts';
import { LedgerMerkleTree } from '../../core/ledger/merkle.ts';
import { SUPPLY_ACCOUNT, type Account, type BalanceEntry, type Credit, type LedgerOperation, type Match } from '../../core/ledger/types.ts';

const ZERO: Hex = `0x${'00'.repeat(32)}`;

export interface VerifyOptions {
  client: PublicClient;
  contract: Address;
  fromBlock?: bigint;
  /** Blocks per getLogs call. */
  chunkBlocks?: bigint;
  progress?: (line: string) => void;
}

export interface VerifyReport {
  ok: boolean;
  batches: number;
  nonce: bigint;
  root: Hex;
  journalCommitment: Hex;
  toBlock: bigint;
  /** The first divergence, explained; absent when ok. */
  divergence?: string;
}

class Divergence extends Error {}

export async function verifyLedger(opts: VerifyOptions): Promise<VerifyReport> {
  const { client, contract } = opts;
  const abi = loadArtifact('LedgerCommitment').abi;
  const say = opts.progress ?? (() => undefined);
  const read = (functionName: 'operator' | 'batchNonce' | 'ledgerRoot' | 'journalCommitment', blockNumber: bigint) =>
    client.readContract({ address: contract, abi, functionName, blockNumber });

  const head = (await client.getBlock({ blockTag: 'latest' })).number;
  const feeAccount = ((await read('operator', head)) as string).toLowerCase() as Account;
  const balances = new LedgerBalances();
  const tree = LedgerMerkleTree.fromBalances([]);
  let nonce = 0n;
  let root: Hex = ZERO;
  let journal: Hex = ZERO;
  let batches = 0;

  /** Applies one batch's balance changes as a unit and moves the tree. */
  const applyBatch = (apply: () => BalanceEntry[]) => {
    const touched = apply().filter((e) => e.account !== SUPPLY_ACCOUNT);
    tree.apply(touched);
    root = tree.root();
  };
  const expectNonce = (given: bigint, where: string) => {
    if (given !== nonce + 1n) throw new Divergence(`${where}: batch nonce ${given} follows ${nonce} (expected ${nonce + 1n})`);
    nonce = given;
  };

  let pending = null as { tx: Hex; movements: Movement[] } | null;
  const from = opts.fromBlock ?? 0n;
  const step = opts.chunkBlocks ?? 5_000n;
  try {
    for (let a = from; a <= head; a += step) {
      const b = a + step - 1n < head ? a + step - 1n : head;
      const logs = await client.getLogs({ address: contract, fromBlock: a, toBlock: b });
      for (const log of logs) await handle(log);
      if (head - from > step) say(`blocks ${a}..${b} of ${head} (${Number(((b - from + 1n) * 100n) / (head - from + 1n))}%): ${batches} batches verified`);
    }
    if (pending) throw new Divergence(`transaction ${pending.tx}: transfer events without a BatchCommitted`);
    const [chainNonce, chainRoot, chainJournal] = (await Promise.all([read('batchNonce', head), read('ledgerRoot', head), read('journalCommitment', head)])) as [bigint, Hex, Hex];
    if (chainNonce !== nonce) throw new Divergence(`the contract's batchNonce() is ${chainNonce}, the replay reached ${nonce}`);
    if (chainRoot.toLowerCase() !== root) throw new Divergence(`the contract's ledgerRoot() is ${chainRoot}, the replay computed ${root}`);
    if (chainJournal.toLowerCase() !== journal) throw new Divergence(`the contract's journalCommitment() is ${chainJournal}, the replay computed ${journal}`);
    return { ok: true, batches, nonce, root, journalCommitment: journal, toBlock: head };
  } catch (err) {
    if (!(err instanceof Divergence)) throw err;
    return { ok: false, batches, nonce, root, journalCommitment: journal, toBlock: head, divergence: err.message };
  }

  async function handle(log: Log) {
    const event = decodeEventLog({ abi, data: log.data, topics: log.topics, strict: true }) as unknown as { eventName: string; args: Record<string, unknown> };
    const tx = log.transactionHash as Hex;
    const where = `block ${log.blockNumber}, tx ${tx}`;
    if (event.eventName === 'TransferSingle' || event.eventName === 'TransferBatch') {
      if (pending && pending.tx !== tx) throw new Divergence(`transaction ${pending.tx}: transfer events without a BatchCommitted`);
      pending ??= { tx, movements: [] };
      const a = event.args as { from: string; to: string; id?: bigint; value?: bigint; ids?: readonly bigint[]; values?: readonly bigint[] };
      const ids = a.ids ?? [a.id!];
      const values = a.values ?? [a.value!];
      ids.forEach((id, i) => pending!.movements.push({ from: a.from.toLowerCase() as Account, to: a.to.toLowerCase() as Account, id, value: values[i]! }));
      return;
    }
    if (event.eventName === 'BatchCommitted') {
      const a = event.args as { nonce: bigint; newRoot: Hex; eventsEmitted: boolean };
      expectNonce(a.nonce, where);
      let movements: Movement[];
      if (a.eventsEmitted) {
        movements = pending?.tx === tx ? pending.movements : [];
      } else {
        // No events: the same legacy rules, read from the call itself.
        const input = (await client.getTransaction({ hash: tx })).input;
        const call = decodeFunctionData({ abi, data: input });
        const [, , , matches, credits] = call.args as unknown as [bigint, Hex, Hex, readonly Match[], readonly Credit[]];
        movements = [
          ...matches.flatMap((m) => movementsOf({ type: 'match', match: normaliseMatch(m) }, feeAccount)),
          ...credits.flatMap((c) => movementsOf({ type: 'credit', credit: { ...c, account: c.account.toLowerCase() as Account } }, feeAccount)),
        ];
      }
      pending = null;
      applyBatch(() => refusalAsDivergence(`batch ${a.nonce} (${where})`, () => balances.applyMovements(movements)));
      compareRoot(a.nonce, a.newRoot, where);
      batches++;
      return;
    }
    if (event.eventName === 'JournalBatchCommitted') {
      if (pending) throw new Divergence(`transaction ${pending.tx}: transfer events without a BatchCommitted`);
      const a = event.args as { nonce: bigint; newRoot: Hex; journalCommitment: Hex; payloadHash: Hex; payload: Hex };
      expectNonce(a.nonce, where);
      if (keccak256(a.payload) !== a.payloadHash.toLowerCase()) throw new Divergence(`batch ${a.nonce} (${where}): payloadHash ${a.payloadHash} is not keccak256 of the payload`);
      let decoded: ReturnType<typeof decodeJournal>;
      try {
        decoded = decodeJournal(hexToBytes(a.payload));
      } catch (err) {
        throw new Divergence(`batch ${a.nonce} (${where}): the PMJ5 payload does not decode: ${(err as Error).message}`);
      }
      if (decoded.nonce !== a.nonce) throw new Divergence(`batch ${a.nonce} (${where}): the payload says it is batch ${decoded.nonce}`);
      const ops: LedgerOperation[] = decoded.operations.flatMap((op) => (op.type === 'supplement' ? [] : [op.type === 'credit' ? { type: 'credit', credit: op.credit } : { type: 'match', match: op.match }]));
      applyBatch(() => {
        const touched = new Map<string, BalanceEntry>();
        ops.forEach((op, i) => {
          for (const e of refusalAsDivergence(`batch ${a.nonce} (${where}), operation ${i}`, () => balances.apply(op, feeAccount))) touched.set(`${e.account}:${e.assetId}`, e);
        });
        return [...touched.values()];
      });
      journal = nextJournalCommitment(journal, a.nonce, a.payloadHash.toLowerCase() as Hex).toLowerCase() as Hex;
      if (journal !== a.journalCommitment.toLowerCase()) throw new Divergence(`batch ${a.nonce} (${where}): journal commitment ${a.journalCommitment} committed, the chain of payloads gives ${journal}`);
      compareRoot(a.nonce, a.newRoot, where);
      batches++;
    }
  }

  function compareRoot(batch: bigint, committed: Hex, where: string) {
    if (committed.toLowerCase() !== root) {
      throw new Divergence(`batch ${batch} (${where}): the contract accepted root ${committed}, replaying the batch gives ${root}`);
    }
  }
}

function refusalAsDivergence<T>(where: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isProblemError(err)) throw new Divergence(`${where}: ${err.code}: ${err.detail}`);
    throw err;
  }
}

function normaliseMatch(m: Match): Match {
  return { ...m, maker: m.maker.toLowerCase() as Account, taker: m.taker.toLowerCase() as Account, side: Number(m.side) as 0 | 1, kind: Number(m.kind) as Match['kind'], priceBps: Number(m.priceBps) };
}

const hexToBytes = (hex: Hex): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
