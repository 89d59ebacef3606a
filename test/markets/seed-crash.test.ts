// The real `svc start` with the demo seed on its first start: killed with SIGKILL in the middle of seeding while
// the indexer is projecting, then started again on the same data folder. Afterwards every market's projected
// trade count equals the Trade logs on chain: nothing the crash interrupted is lost or counted twice.
import { createPublicClient, http, parseAbiItem, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processFolder, type ProcessFolder } from '../support/process-folder.ts';
import { linesOf, runSvc, spawnSvc, type SvcProcess } from '../cli/svc-process.ts';

let folder: ProcessFolder;
let env: Record<string, string>;
let base: string;
let anvilPort: number;
const running = new Set<SvcProcess>();

beforeAll(async () => {
  folder = await processFolder('svc-seed-');
  ({ anvilPort, base } = folder);
  env = {
    ...folder.env,
    LOG_LEVEL: 'warn',
    SEED_DEMO_MARKETS: 'true',
    INDEXER_POLL_MS: '50',
  };
});

afterAll(async () => {
  for (const svc of running) {
    svc.child.kill('SIGKILL');
    await svc.exited;
  }
  await folder.remove();
});

function spawn(): SvcProcess {
  const svc = spawnSvc(['start'], env);
  running.add(svc);
  void svc.exited.then(() => running.delete(svc));
  return svc;
}

async function getJson(url: string, key: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
}

describe('demo seed and a crash mid-indexing', () => {
  it('survives SIGKILL during the seed: after the restart the projection equals the chain', async () => {
    const created = await runSvc(['keys', 'create', '--tier', 'read-only'], env);
    expect(created.code, created.stderr).toBe(0);
    const key = linesOf(created.stdout).find((l) => l.startsWith('api key:'))!.split(': ')[1]!.trim();

    const first = spawn();
    // Two markets in, trades flowing and the indexer polling every 50 ms: kill it.
    await first.waitForLine(/^svc: seed: market 2\//, 120_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = spawn();
    await second.waitForLine(/^svc: ready in /, 180_000);
    expect(second.stdout()).toMatch(/seed: \d+ demo markets with trades are live/);

    const listed = await getJson(`${base}/api/agent/v1/discover/markets?pageSize=100`, key);
    expect(listed.status).toBe(200);
    const all = listed.body.markets as { address: Address; tradeCount: number; category: string; pricingModel: string }[];
    // LMSR markets trade on chain; order books trade in the ledger (their fills are checked below).
    const markets = all.filter((m) => m.pricingModel !== 'ORDERBOOK');
    // The interrupted run created at least two markets, the restart the full demo set again.
    expect(markets.length).toBeGreaterThanOrEqual(7);
    expect(new Set(markets.map((m) => m.category)).size).toBeGreaterThanOrEqual(4);

    const client = createPublicClient({ transport: http(`http://127.0.0.1:${anvilPort}`) });
    const trade = parseAbiItem('event Trade(address indexed trader, address indexed recipient, uint8 outcome, bool isBuy, uint256 shares, uint256 cost, uint256 protocolFee, uint256 creatorFee, uint256[] pricesAfter)');
    const logs = await client.getLogs({ event: trade, fromBlock: 0n, toBlock: 'latest' });
    const onChain = new Map<string, number>();
    for (const l of logs) onChain.set(l.address.toLowerCase(), (onChain.get(l.address.toLowerCase()) ?? 0) + 1);
    let total = 0;
    for (const m of markets) {
      expect(m.tradeCount, m.address).toBe(onChain.get(m.address.toLowerCase()) ?? 0);
      total += m.tradeCount;
    }
    expect(total).toBe(logs.length);
    expect(total).toBeGreaterThan(10);

    const holders = await getJson(`${base}/api/agent/v1/discover/markets/${markets[0]!.address}/holders`, key);
    expect(holders.status).toBe(200);

    // The demo order books are live: resting orders on both sides.
    const books = await getJson(`${base}/api/agent/v1/discover/markets?pricingModel=ORDERBOOK&pageSize=100`, key);
    expect(books.body.markets.length).toBeGreaterThanOrEqual(2);
    const depth = await getJson(`${base}/api/agent/v1/discover/markets/${books.body.markets[0].address}/depth`, key);
    expect(depth.body).toMatchObject({ kind: 'orderbook', tradeable: true });
    expect(depth.body.bids.length).toBeGreaterThan(0);
    expect(depth.body.asks.length).toBeGreaterThan(0);
    // Their trades are their fills: the seed's complete-set mint at least.
    for (const book of books.body.markets as { address: string; tradeCount: number }[]) {
      const fills = await getJson(`${base}/api/agent/v1/discover/markets/${book.address}/trades?limit=100`, key);
      expect(fills.body.trades.length).toBe(book.tradeCount);
    }
    expect(all.filter((m) => m.pricingModel === 'ORDERBOOK').reduce((n, m) => n + m.tradeCount, 0)).toBeGreaterThan(0);
    second.child.kill('SIGINT');
    await second.exited;
  });
});
