// A card purchase's PM is delivered exactly once across a crash of its delivery and a restart (docs/economy.md
// "Delivery, exactly once"): the relayer fails right after broadcasting the delivery, or right before; the provider's
// webhook comes again; the service is stopped and started on the same data folder, database and chain; the delivery
// pass runs again. The wallet holds the bundle's PM once, and the order says delivered with the one transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { erc20Abi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { RelayerFaults } from '../../src/chain/relayer.ts';
import { siweMessage } from '../../src/core/siwe.ts';
import { pmForUsd } from '../../src/core/economy/terms.ts';
import { idemKey, newClient } from '../support/agents.ts';
import { dropPostgres, freshPostgresUrl, onPostgres, startTestServer, type TestServer } from '../support/harness.ts';
import { tokens } from '../support/markets.ts';
import { startStripeServer } from '../support/stripe-server.ts';
import { waitFor } from '../support/wait.ts';

const USD = 10;

describe('card delivery across a crash and a restart', () => {
  for (const point of ['afterBroadcast', 'beforeBroadcast'] as const) {
    it(`delivers once when the relayer failed ${point === 'afterBroadcast' ? 'after' : 'before'} broadcasting the delivery`, async () => {
      const stripe = await startStripeServer();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-card-crash-'));
      const databaseUrl = onPostgres ? await freshPostgresUrl() : undefined;
      const env = { STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_API_BASE: stripe.url, TRUST_PROXY: 'true', MARKET_SCHEDULER_MS: '60000' };
      let armed = true;
      const faults: RelayerFaults = {
        [point]: (tx: { operationId: string }) => {
          if (armed && tx.operationId.startsWith('pm-card:')) {
            armed = false;
            throw new Error(`simulated crash ${point}`);
          }
        },
      };
      const start = (relayerFaults?: RelayerFaults) => startTestServer({ dataDir, persistent: true, databaseUrl, env, relayerFaults });
      let server: TestServer | undefined;
      try {
        server = await start(faults);
        const buyer = privateKeyToAccount(generatePrivateKey());
        const headers = newClient();
        const { nonce } = (await server.call('POST', '/api/auth/nonce', { headers })).body;
        const message = siweMessage({ publicBaseUrl: server.config.publicBaseUrl, chainId: server.config.chain.id }, { address: buyer.address, nonce, issuedAt: server.runtime.clock.now() });
        const session = (await server.call('POST', '/api/auth/verify', { body: { message, signature: await buyer.signMessage({ message }), returnToken: true }, headers })).body.token as string;
        const key = await server.key('execute');
        const opened = await server.call('POST', '/api/v1/economy/checkout-session', { key, body: { usd: USD }, idempotencyKey: idemKey('card'), headers: { 'Svc-Wallet-Session': session } });
        expect(opened.status, opened.text).toBe(200);
        const sessionId = opened.body.sessionId as string;
        stripe.markPaid(sessionId);
        const webhook = (s: TestServer) => {
          const { payload, header } = stripe.webhookFor(sessionId);
          return s.call('POST', '/api/v1/economy/provider-webhook', { payload, headers: { 'content-type': 'application/json', 'stripe-signature': header }, unchecked: true });
        };
        // The payment starts a delivery pass at once, which the fault interrupts.
        expect((await webhook(server)).body.outcome).toBe('paid');
        await waitFor(() => !armed, { what: 'the delivery to reach the fault' });
        // The duplicate webhook changes nothing: the order is paid, its delivery interrupted.
        expect((await webhook(server)).body.outcome).toBe('unchanged');
        await server.close();
        server = undefined;

        server = await start();
        expect((await webhook(server)).body.outcome).toBe('unchanged');
        await server.runtime.services.economy.deliverNow();
        await server.runtime.services.economy.deliverNow();
        const status = await server.call('GET', `/api/v1/economy/purchase-status/${sessionId}`, { key, headers: { 'Svc-Wallet-Session': session } });
        expect(status.body.state, status.text).toBe('delivered');
        const pm = tokens(server).PM as Address;
        const held = await server.runtime.services.chain.client.readContract({ address: pm, abi: erc20Abi, functionName: 'balanceOf', args: [buyer.address] });
        expect(held).toBe(pmForUsd(USD, server.config.economy.priceUsdcPerPm));
        // One delivery transaction on chain: the relayer recorded one operation for the order.
        const ops = await server.runtime.database.db.selectFrom('relayer_transactions').select(['operation_id', 'state']).where('operation_id', 'like', 'pm-card:%').execute();
        expect(ops.filter((o) => o.state === 'confirmed')).toHaveLength(1);
      } finally {
        await server?.close();
        await stripe.close();
        rmSync(dataDir, { recursive: true, force: true });
        if (databaseUrl) await dropPostgres(databaseUrl);
      }
    });
  }
});
