// The deployer in a process that must not deploy (SVC_ROLE=api, docs/architecture.md "Several processes"): it reads the
// deployments its SVC_ROLE=all process recorded, and a contract not recorded yet is an error naming the start order —
// never a second deployment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeploymentMismatchError, ensureDeployments } from '../../src/chain/deployer.ts';
import { startTestServer, type TestServer } from '../support/harness.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const deps = () => ({
  db: server.runtime.database.db,
  client: server.runtime.services.chain.client,
  relayer: server.runtime.relayer,
  chainId: server.config.chain.id,
  clock: server.runtime.clock,
  log: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child() { return this; } } as never,
  mayDeploy: false,
});

describe('ensureDeployments with mayDeploy false', () => {
  it('answers what is recorded and refuses, without sending anything, what is not', async () => {
    const operator = server.runtime.operator;
    const recorded = await ensureDeployments({ ...deps(), specs: [{ name: 'TestUSDC', contract: 'TestUSDC', args: [operator] }] });
    expect(recorded.TestUSDC!.address.toLowerCase()).toBe(server.runtime.deployments.TestUSDC!.address.toLowerCase());
    const before = await server.runtime.database.db.selectFrom('relayer_transactions').select('operation_id').execute();
    await expect(ensureDeployments({ ...deps(), specs: [{ name: 'TestUSDC.second', contract: 'TestUSDC', args: [operator] }] })).rejects.toThrow(DeploymentMismatchError);
    await expect(ensureDeployments({ ...deps(), specs: [{ name: 'TestUSDC.second', contract: 'TestUSDC', args: [operator] }] })).rejects.toThrow(/SVC_ROLE=all process first/);
    expect(await server.runtime.database.db.selectFrom('relayer_transactions').select('operation_id').execute()).toHaveLength(before.length);
  });
});
