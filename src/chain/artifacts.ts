// Typed access to the committed contract artifacts (artifacts/*.json, built by scripts/build-contracts.ts).
// The service only reads these; it never compiles Solidity at run time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keccak256, type Abi, type Hex } from 'viem';
import { INSTALL_ROOT } from '../core/install-root.ts';

/** Every contract the service deploys or talks to; extend when a contract is added under contracts/. */
export const CONTRACT_NAMES = [
  'LedgerCommitment',
  'LmsrMarket',
  'LmsrMarketFactory',
  'MarketResolver',
  'OrderBookMarket',
  'OrderBookMarketFactory',
  'OutcomeToken',
  'ParticipationDistributor',
  'ParticipationToken',
  'PayoutRouter',
  'PmSale',
  'TestUSDC',
  'TradeRouter',
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

/** A byte range of runtime code that the constructor fills in (a Solidity immutable). */
export interface ImmutableRange {
  start: number;
  length: number;
}

export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
  /** Zeroed in deployedBytecode, filled per deployment; mask them before comparing on-chain code. */
  immutableReferences: ImmutableRange[];
  /** keccak256(deployedBytecode); compare with runtimeCodeHashOf(), not keccak256(eth_getCode). */
  runtimeCodeHash: Hex;
}

const ARTIFACTS_DIR = join(INSTALL_ROOT, 'artifacts');

const cache = new Map<ContractName, Artifact>();
let parityHash: Hex | undefined;

function isHex(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value);
}

function isRanges(value: unknown): value is ImmutableRange[] {
  return Array.isArray(value) && value.every((r: unknown) => typeof r === 'object' && r !== null && Number.isInteger((r as ImmutableRange).start) && Number.isInteger((r as ImmutableRange).length));
}

function readJson(file: string): unknown {
  const path = join(ARTIFACTS_DIR, file);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new Error(`cannot read contract artifact ${path} (run: npx tsx scripts/build-contracts.ts): ${(err as Error).message}`, { cause: err });
  }
}

export function loadArtifact(name: ContractName): Artifact {
  const cached = cache.get(name);
  if (cached) return cached;
  const raw = readJson(`${name}.json`) as Record<string, unknown>;
  const { contractName, sourceName, abi, bytecode, deployedBytecode, immutableReferences, runtimeCodeHash } = raw;
  // A hand-edited or half-written file should fail here, not as an odd viem error at deploy time.
  if (typeof contractName !== 'string' || contractName !== name || typeof sourceName !== 'string' || !Array.isArray(abi) || !isHex(bytecode) || !isHex(deployedBytecode) || !isRanges(immutableReferences) || !isHex(runtimeCodeHash)) {
    throw new Error(`contract artifact ${name}.json is malformed`);
  }
  const artifact: Artifact = { contractName, sourceName, abi: abi as Abi, bytecode, deployedBytecode, immutableReferences, runtimeCodeHash };
  cache.set(name, artifact);
  return artifact;
}

let errorsAbi: Abi | undefined;

/**
 * `name`'s ABI with the custom errors of every contract: routers bubble market and token errors up unchanged,
 * so a revert anywhere in a call decodes by name whichever contract raised it.
 */
export function abiWithAllErrors(name: ContractName): Abi {
  if (!errorsAbi) {
    const seen = new Map<string, Abi[number]>();
    for (const n of CONTRACT_NAMES) {
      for (const item of loadArtifact(n).abi) if (item.type === 'error') seen.set(`${item.name}(${item.inputs.map((i) => i.type).join(',')})`, item);
    }
    errorsAbi = [...seen.values()];
  }
  return [...loadArtifact(name).abi.filter((item) => item.type !== 'error'), ...errorsAbi];
}

/** keccak256 of the sorted runtime code hashes of all artifacts; one value to compare deployments against. */
export function artifactParityHash(): Hex {
  if (parityHash) return parityHash;
  const raw = readJson('index.json') as Record<string, unknown>;
  if (!isHex(raw.artifactParityHash)) throw new Error('artifacts/index.json has no artifactParityHash');
  parityHash = raw.artifactParityHash;
  return parityHash;
}

/**
 * Hash of on-chain runtime code (eth_getCode) comparable with `artifact.runtimeCodeHash`: the artifact's immutable
 * ranges are zeroed first, because constructors write per-deployment values (chain id, domain separator, address) there.
 */
export function runtimeCodeHashOf(artifact: Artifact, code: Hex): Hex {
  if (artifact.immutableReferences.length === 0) return keccak256(code);
  const bytes = Buffer.from(code.slice(2), 'hex');
  for (const { start, length } of artifact.immutableReferences) {
    if (start + length <= bytes.length) bytes.fill(0, start, start + length);
  }
  return keccak256(bytes);
}
