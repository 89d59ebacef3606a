/**
 * GET /discover/release: the protocol release this service runs and whether the chain runs it. Every recorded
 * deployment's code is read back (eth_getCode), its immutables masked, and compared with the committed artifact;
 * deployedParityHash is artifactParityHash's construction applied to that on-chain code. Deployments never change
 * while the process runs, so the check is made once per chain service, on the first call that succeeds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concat, keccak256, type Address, type Hex, type PublicClient } from 'viem';
import { z } from 'zod';
import { INSTALL_ROOT } from '../../../core/install-root.ts';
import { artifactParityHash, CONTRACT_NAMES, loadArtifact, runtimeCodeHashOf, type ContractName } from '../../../chain/artifacts.ts';
import type { DeploymentRecord } from '../../../chain/deployer.ts';
import type { ChainService } from '../../../services/chain/chain-service.ts';
import { ChainId, EvmAddress, Hash32 } from '../../../wire/schemas.ts';
import { defineCapability } from '../types.ts';

const ReleaseContract = z.object({
  name: z.string().describe('deployment name, e.g. TradeRouter.USDC'),
  contract: z.string().nullable().describe('artifact (contract) name: the deployment name up to the first dot; null when the release has no such artifact'),
  address: EvmAddress,
  runtimeCodeHash: Hash32.describe('recorded at deployment: keccak256 of the on-chain code, immutables included'),
  artifactRuntimeCodeHash: Hash32.nullable().describe("the artifact's runtimeCodeHash (immutables zeroed)"),
  deployedRuntimeCodeHash: Hash32.nullable().describe('keccak256 of the code at the address now, immutables zeroed as in the artifact; null when there is no code'),
  matches: z.boolean().describe('the code at the address is the recorded code and the release artifact'),
});

export const ReleaseManifestSchema = z.object({
  release: z.object({
    version: z.string(),
    chainId: ChainId,
    artifactParityHash: Hash32.describe('keccak256 of the sorted runtime code hashes of every release artifact (artifacts/index.json)'),
    sourceHash: Hash32.nullable(),
    compiler: z.object({ version: z.string(), evmVersion: z.string(), optimizer: z.object({ enabled: z.boolean(), runs: z.number().int() }) }).nullable(),
    contracts: z.array(ReleaseContract),
    undeployed: z.array(z.string()).describe('release artifacts with no deployment on this chain (e.g. TestUSDC where USDC is the real token)'),
    deployedParityHash: Hash32.describe('the same construction over the distinct deployedRuntimeCodeHash values'),
    parity: z.boolean().describe('every contract matches and deployedParityHash equals artifactParityHash: the chain runs exactly this release'),
  }),
});
export type ReleaseManifest = z.output<typeof ReleaseManifestSchema>['release'];

interface ReleaseIndex {
  version: string;
  contracts: string[];
  sourceHash: Hex | null;
  compiler: ReleaseManifest['compiler'];
}
let releaseIndex: ReleaseIndex | undefined;

function readIndex(): ReleaseIndex {
  if (releaseIndex) return releaseIndex;
  const pkg = JSON.parse(readFileSync(join(INSTALL_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  const index = JSON.parse(readFileSync(join(INSTALL_ROOT, 'artifacts', 'index.json'), 'utf8')) as Record<string, unknown>;
  const compiler = index.compiler as { version?: unknown; evmVersion?: unknown; optimizer?: { enabled?: unknown; runs?: unknown } } | undefined;
  releaseIndex = {
    version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
    contracts: Array.isArray(index.contracts) ? index.contracts.filter((c): c is string => typeof c === 'string') : [...CONTRACT_NAMES],
    sourceHash: typeof index.sourceHash === 'string' ? (index.sourceHash as Hex) : null,
    compiler:
      typeof compiler?.version === 'string'
        ? {
            version: compiler.version,
            evmVersion: String(compiler.evmVersion ?? ''),
            optimizer: { enabled: compiler.optimizer?.enabled === true, runs: Number(compiler.optimizer?.runs ?? 0) },
          }
        : null,
  };
  return releaseIndex;
}

/** The artifact a deployment name refers to: the part before the first '.' ('TradeRouter.USDC' → TradeRouter). */
export function contractOf(deploymentName: string): ContractName | null {
  const name = deploymentName.split('.')[0]!;
  return (CONTRACT_NAMES as readonly string[]).includes(name) ? (name as ContractName) : null;
}

/** keccak256 of the concatenated, sorted hashes: artifactParityHash's construction (scripts/build-contracts.ts). */
export function parityHashOf(hashes: readonly Hex[]): Hex {
  return hashes.length > 0 ? keccak256(concat([...hashes].sort())) : keccak256('0x');
}

/** Reads every deployment's code and compares it with the recorded hash and the release artifact. */
export async function checkRelease(deps: { client: PublicClient; chainId: number; deployments: readonly DeploymentRecord[] }): Promise<ReleaseManifest> {
  const index = readIndex();
  const contracts = await Promise.all(
    deps.deployments.map(async (d) => {
      const contract = contractOf(d.name);
      const artifact = contract ? loadArtifact(contract) : null;
      const code = await deps.client.getCode({ address: d.address as Address });
      const present = code !== undefined && code !== '0x';
      const deployedRuntimeCodeHash = !present ? null : artifact ? runtimeCodeHashOf(artifact, code) : keccak256(code);
      return {
        name: d.name,
        contract,
        address: d.address,
        runtimeCodeHash: d.runtimeCodeHash,
        artifactRuntimeCodeHash: artifact?.runtimeCodeHash ?? null,
        deployedRuntimeCodeHash,
        matches: present && artifact !== null && deployedRuntimeCodeHash === artifact.runtimeCodeHash && keccak256(code) === d.runtimeCodeHash,
      };
    }),
  );
  const deployedHashes = [...new Set(contracts.flatMap((c) => (c.deployedRuntimeCodeHash ? [c.deployedRuntimeCodeHash] : [])))];
  const deployedParityHash = parityHashOf(deployedHashes);
  const expected = artifactParityHash();
  return {
    version: index.version,
    chainId: deps.chainId,
    artifactParityHash: expected,
    sourceHash: index.sourceHash,
    compiler: index.compiler,
    contracts,
    undeployed: index.contracts.filter((name) => !contracts.some((c) => c.contract === name)),
    deployedParityHash,
    parity: contracts.length > 0 && contracts.every((c) => c.matches) && deployedParityHash === expected,
  };
}

const checked = new WeakMap<ChainService, Promise<ReleaseManifest>>();

/** checkRelease once per chain service; a failed check (node down) is not kept, so the next call retries. */
export function releaseOf(chain: ChainService): Promise<ReleaseManifest> {
  let release = checked.get(chain);
  if (!release) {
    release = chain.guard(async () => checkRelease({ client: chain.client, chainId: chain.chainId, deployments: await chain.deployments() }));
    release.catch(() => checked.delete(chain));
    checked.set(chain, release);
  }
  return release;
}

export const discoverRelease = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/discover/release',
  category: 'discovery',
  summary: 'Protocol release manifest',
  description:
    'The active protocol release: service version, compiler, artifactParityHash (keccak256 of the sorted runtime code hashes of the release artifacts) and, per recorded deployment, the recorded, artifact and on-chain code hashes and whether they match. deployedParityHash applies the same construction to the code actually deployed; parity is true when every contract matches and the two hashes are equal. Immutables are zeroed before hashing, so routers of different collaterals share one hash. Checked against the chain once per process.',
  tier: 'read-only',
  scopes: ['markets:read'],
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_discover_release' },
  output: ReleaseManifestSchema,
  outputName: 'ReleaseManifest',
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async (ctx) => ({ release: await releaseOf(ctx.services.chain) }),
});
