// Order books pay out through the ledger: two agents trade a play-money book (a complete set minted between them), the
// book resolves through the resolution path, the payout keeper appends PAYOUT credits once (the winner's shares
// retired and paid SHARE_VALUE each, the loser's retired), /claims/available lists the payout as claimed, and the
// credits commit on chain with the next ledger batch.
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArtifact } from '../../src/chain/artifacts.ts';
import { COLLATERAL_ASSET, outcomeAsset, SHARE_VALUE, type Account } from '../../src/core/ledger/types.ts';
import { verifyLedger } from '../../src/services/ledger/verify.ts';
import { waitingOperations } from '../../src/services/ledger/batch-range.ts';
import { registerWallet } from '../support/agents.ts';
import { rpc } from '../support/anvil-rpc.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { gas, sendTx } from '../support/markets.ts';
import { createOrderBookMarket } from '../support/orderbook.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { REGISTRATION_PATHS: 'wallet', TRUST_PROXY: 'true', INDEXER_POLL_MS: '60000', MARKET_SCHEDULER_MS: '60000' } });
});
afterAll(async () => server?.close());

const A = '/api/agent/v1';
let idem = 0;

describe('order-book payouts', () => {
  it('pays the winners of a resolved book in ledger credits, once, and lists them as claimed', async () => {
    const { services } = server.runtime;
    const creator = await registerWallet(server, undefined, 'book-creator');
    await gas(server, creator.account.address);
    const [yes, no] = [await registerWallet(server, undefined, 'book-yes'), await registerWallet(server, undefined, 'book-no')];
    const book = await createOrderBookMarket(server, creator, 'Will the order book pay its winners?', new Date(Date.now() + 7 * 86_400_000));
    const place = (agent: typeof yes, outcome: number, priceBps: number) =>
      server.call('POST', `${A}/orderbook/place-order`, { key: agent.key, idempotencyKey: `book-${++idem}`, body: { market: book.address, outcome, action: 'buy', price: String(priceBps / 10_000), shares: '10000000' } });
    expect((await place(yes, 0, 6000)).body.status).toBe('resting');
    expect((await place(no, 1, 4000)).body.status).toBe('filled'); // a complete set minted between them
    const balance = async (who: string, id: bigint) => (await services.ledger.balancesOf(who.toLowerCase() as Account)).find((b) => b.assetId === id)?.balance ?? 0n;
    const [yesShares, noShares] = [outcomeAsset(book.marketId, 0), outcomeAsset(book.marketId, 1)];
    expect(await balance(yes.account.address, yesShares)).toBe(10n);
    expect(await balance(no.account.address, noShares)).toBe(10n);
    const before = { yes: await balance(yes.account.address, COLLATERAL_ASSET), no: await balance(no.account.address, COLLATERAL_ASSET) };

    const resolver = services.chain.lane().resolver;
    await sendTx(server, creator.account, { to: resolver, data: encodeFunctionData({ abi: loadArtifact('MarketResolver').abi, functionName: 'propose', args: [book.address as Address, 1] }) as Hex });
    await services.indexer.syncNow();
    expect(await services.payoutKeeper.runOnce()).toEqual([]); // proposed is not resolved
    await rpc(server.runtime.rpcUrl, 'evm_increaseTime', [7_201]);
    await rpc(server.runtime.rpcUrl, 'evm_mine');
    await services.resolutionKeeper.runOnce();
    await services.indexer.syncNow();

    expect(await services.payoutKeeper.runOnce()).toEqual([`payout ${book.address}`]);
    expect(await services.payoutKeeper.runOnce()).toEqual([]); // once
    expect((await balance(yes.account.address, COLLATERAL_ASSET)) - before.yes).toBe(10n * SHARE_VALUE);
    expect(await balance(no.account.address, COLLATERAL_ASSET)).toBe(before.no);
    expect(await balance(yes.account.address, yesShares)).toBe(0n);
    expect(await balance(no.account.address, noShares)).toBe(0n);

    const listed = (await server.call('GET', `${A}/claims/available`, { key: yes.key })).body;
    expect(listed.payouts).toEqual([expect.objectContaining({ marketAddress: book.address, status: 'claimed', claimed: true, amount: (10n * SHARE_VALUE).toString(), winningShares: (10n * SHARE_VALUE).toString() })]);
    const claimed = await server.call('POST', `${A}/claims/batch`, { key: yes.key, idempotencyKey: `book-${++idem}`, body: { markets: [{ chainId: 8453, marketAddress: book.address }] } });
    expect(claimed.body.claims[0]).toMatchObject({ state: 'SKIPPED', skippedReason: 'ROUTER_UNAVAILABLE' }); // paid by the ledger, nothing to claim

    // The credits commit on chain with the next batch.
    await services.ledgerBatcher.flush({ force: true });
    expect(services.ledgerBatcher.halted()).toBeNull();
    const pending = await server.runtime.database.db.selectFrom(waitingOperations(server.runtime.database.db).select(['seq', 'source']).as('w')).select('w.seq').where('w.source', 'like', `payout:8453:${book.address}#%`).execute();
    expect(pending).toEqual([]);
    // Anyone rebuilds every balance from chain data alone, the payout included.
    expect(await verifyLedger({ client: services.chain.client, contract: services.ledgerBatcher.contract })).toMatchObject({ ok: true });
  });
});
