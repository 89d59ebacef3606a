/**
 * Ensures the service's contracts exist on the configured chain and records each deployment
 * (the spec's deployment record). A recorded deployment is verified, never redeployed; a new one
 * goes through the relayer under a fixed operation id, so a crash mid-deploy resumes the same
 * transaction instead of deploying twice.
 */
import type { Kysely } from 'kysely';
import { encodeDeployData, getAddress, keccak256, type Address, type Hex, type PublicClient } from 'viem';
import type { Clock } from '../core/clock.ts';
import type { DB } from '../db/schema.ts';
import type { Logger } from '../core/logger.ts';
import { loadArtifact, type ContractName } from './artifacts.ts';
import type { Relayer } from './relayer.ts';

export interface DeploymentRecord {
  name: string;
  chainId: number;
  address: Address;
  fromBlock: number;
  deploymentTxHash: Hex;
  deploymentBlockHash: Hex;
  runtimeCodeHash: Hex;
}

export interface ContractSpec {
  /** Deployment name; usually the contract name. */
  name: string;
  contract: ContractName;
  args: readonly unknown[];
}

export class DeploymentMismatchError extends Error {
  override name = 'DeploymentMismatchError';
}

export async function ensureDeployments(deps: {
  db: Kysely<DB>;
  client: PublicClient;
  relayer: Relayer;
  chainId: number;
  clock: Clock;
  log: Logger;
  specs: readonly ContractSpec[];
  /** false in a process that must not deploy (SVC_ROLE=api): a contract not recorded yet is an error, not a deployment. */
  mayDeploy?: boolean;
}): Promise<Record<string, DeploymentRecord>> {
  const { db, client, relayer, chainId, clock, log } = deps;
  const out: Record<string, DeploymentRecord> = {};
  for (const spec of deps.specs) {
    const artifact = loadArtifact(spec.contract);
    const bytecodeHash = keccak256(artifact.bytecode);
    const recorded = await db.selectFrom('deployments').selectAll().where('chain_id', '=', chainId).where('name', '=', spec.name).executeTakeFirst();
    if (recorded) {
      const code = await client.getCode({ address: recorded.address as Address });
      if (!code || code === '0x') {
        throw new DeploymentMismatchError(
          `deployment ${spec.name} is recorded at ${recorded.address} but the chain has no code there: the database and the chain are from different runs (reset DATA_DIR or point at the right chain)`,
        );
      }
      if (keccak256(code) !== recorded.runtime_code_hash) {
        throw new DeploymentMismatchError(`deployment ${spec.name} at ${recorded.address}: on-chain code differs from the recorded runtimeCodeHash`);
      }
      if (recorded.bytecode_hash !== bytecodeHash) {
        log.warn({ name: spec.name }, 'deployer: the built artifact changed since this contract was deployed; keeping the deployed one');
      }
      out[spec.name] = toRecord(recorded);
      continue;
    }
    if (deps.mayDeploy === false) {
      throw new DeploymentMismatchError(
        `deployment ${spec.name} is not recorded in this database yet and this process does not deploy (SVC_ROLE=api): start the deployment's SVC_ROLE=all process first, then this one`,
      );
    }
    const operationId = `deploy:${chainId}:${spec.name}`;
    log.info({ name: spec.name }, 'deployer: deploying');
    const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: spec.args as unknown[] });
    const tx = await relayer.send({ operationId, idempotencyKey: operationId, to: null, data });
    if (tx.state !== 'confirmed' || !tx.contractAddress || tx.blockNumber === null || !tx.blockHash) {
      throw new Error(`deployer: deploying ${spec.name} ended in state ${tx.state} (tx ${tx.txHash})`);
    }
    const code = await client.getCode({ address: tx.contractAddress, blockNumber: tx.blockNumber });
    if (!code || code === '0x') throw new Error(`deployer: ${spec.name} deployed at ${tx.contractAddress} but has no code`);
    const row = {
      chain_id: chainId,
      name: spec.name,
      address: tx.contractAddress.toLowerCase(),
      from_block: tx.blockNumber.toString(),
      deployment_tx_hash: tx.txHash,
      deployment_block_hash: tx.blockHash,
      runtime_code_hash: keccak256(code),
      bytecode_hash: bytecodeHash,
      created_at: clock.now(),
    };
    await db.insertInto('deployments').values(row).execute();
    out[spec.name] = toRecord(row);
    log.info({ name: spec.name, address: row.address, block: row.from_block }, 'deployer: deployed');
  }
  return out;
}

export async function listDeployments(db: Kysely<DB>, chainId: number): Promise<DeploymentRecord[]> {
  const rows = await db.selectFrom('deployments').selectAll().where('chain_id', '=', chainId).orderBy('from_block').orderBy('name').execute();
  return rows.map(toRecord);
}

function toRecord(r: {
  name: string;
  chain_id: number;
  address: string;
  from_block: string | number | bigint;
  deployment_tx_hash: string;
  deployment_block_hash: string;
  runtime_code_hash: string;
}): DeploymentRecord {
  return {
    name: r.name,
    chainId: r.chain_id,
    address: getAddress(r.address),
    fromBlock: Number(r.from_block),
    deploymentTxHash: r.deployment_tx_hash as Hex,
    deploymentBlockHash: r.deployment_block_hash as Hex,
    runtimeCodeHash: r.runtime_code_hash as Hex,
  };
}
