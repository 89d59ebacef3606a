// Compiles contracts/**/*.sol with solc-js into committed, deterministic artifacts/*.json.
// `--check` recompiles in memory and fails if the committed artifacts are stale (CI runs it; the service never compiles).
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import solc from 'solc';
import { CONTRACTS_DIR, listSolFiles, resolveUnit, ROOT, sourceHash as sourceHashOf, unitName } from './contract-sources.ts';
import { concat, keccak256, type Abi, type Hex } from 'viem';

const OPTIMIZER_RUNS = 200;
const EVM_VERSION = 'cancun';

const ARTIFACTS_DIR = join(ROOT, 'artifacts');

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
}
interface SolcContractOutput {
  abi: Abi;
  evm: {
    bytecode: { object: string; linkReferences: Record<string, unknown> };
    deployedBytecode: {
      object: string;
      linkReferences: Record<string, unknown>;
      immutableReferences?: Record<string, { start: number; length: number }[]>;
    };
  };
}
interface SolcAstNode {
  nodeType: string;
  name?: string;
  contractKind?: 'contract' | 'interface' | 'library';
  abstract?: boolean;
}
interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<string, Record<string, SolcContractOutput>>;
  sources?: Record<string, { ast: { nodes: SolcAstNode[] } }>;
}
type ImportResult = { contents: string } | { error: string };
// solc-js ships `any` types; pin down the one call we use.
const compileStandard: (input: string, callbacks: { import: (path: string) => ImportResult }) => string = solc.compile;
const solcVersion: () => string = solc.version;

/** Artifact shape on disk; key order here is the key order in the file. */
interface ArtifactFile {
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
  immutableReferences: { start: number; length: number }[];
  runtimeCodeHash: Hex;
  compiler: { version: string; optimizer: { enabled: boolean; runs: number }; evmVersion: string };
  sourceHash: Hex;
}

/** Recursively sorts object keys so output doesn't depend on solc's (or JS's) insertion order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
  }
  return value;
}

function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

interface BuildResult {
  /** Relative file name under artifacts/ → exact file contents. */
  files: Map<string, string>;
  sourceCount: number;
}

function build(): BuildResult {
  const ownFiles = listSolFiles(CONTRACTS_DIR).sort();
  if (ownFiles.length === 0) throw new Error('no contracts/**/*.sol sources found');
  console.log(`compiling ${ownFiles.length} sources…`);

  // Every source solc reads, ours and imported, so sourceHash covers OZ too.
  const allSources = new Map<string, string>();
  const sources: Record<string, { content: string }> = {};
  for (const file of ownFiles) {
    const content = readFileSync(file, 'utf8');
    const name = unitName(file);
    sources[name] = { content };
    allSources.set(name, content);
  }

  const findImports = (path: string): ImportResult => {
    try {
      const resolved = resolveUnit(path);
      const contents = readFileSync(resolved, 'utf8');
      allSources.set(path, contents);
      return { contents };
    } catch (err) {
      return { error: `cannot resolve import ${path}: ${(err as Error).message}` };
    }
  };

  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      evmVersion: EVM_VERSION,
      outputSelection: { '*': { '': ['ast'], '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences', 'evm.deployedBytecode.object', 'evm.deployedBytecode.linkReferences', 'evm.deployedBytecode.immutableReferences'] } },
    },
  };
  const started = Date.now();
  const output = JSON.parse(compileStandard(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  const warnings = (output.errors ?? []).filter((e) => e.severity === 'warning');
  for (const w of warnings) console.error(w.formattedMessage);
  if (errors.length > 0) {
    for (const e of errors) console.error(e.formattedMessage);
    throw new CompileFailed(`${errors.length} compile error(s)`);
  }
  console.log(`compiled ${allSources.size} files (incl. imports) in ${Date.now() - started} ms`);

  // Names are included so a rename or move also changes the hash, not only an edit.
  const sourceHash = sourceHashOf(allSources);
  const compiler = { version: solcVersion(), optimizer: { enabled: true, runs: OPTIMIZER_RUNS }, evmVersion: EVM_VERSION };

  const files = new Map<string, string>();
  const seen = new Map<string, string>();
  const runtimeHashes: Hex[] = [];
  for (const sourceName of Object.keys(sources).sort()) {
    const contracts = output.contracts?.[sourceName] ?? {};
    const deployable = deployableContracts(output, sourceName);
    for (const contractName of Object.keys(contracts).sort()) {
      // Interfaces, libraries (all internal here, so inlined) and abstract bases are never deployed: no artifact, and
      // they stay out of the parity hash, which then covers exactly the code that can be at an address.
      if (!deployable.has(contractName)) continue;
      const c = contracts[contractName]!;
      const prior = seen.get(contractName);
      if (prior) throw new Error(`contract name ${contractName} defined in both ${prior} and ${sourceName}; artifact names must be unique`);
      seen.set(contractName, sourceName);
      if (Object.keys(c.evm.bytecode.linkReferences).length > 0 || Object.keys(c.evm.deployedBytecode.linkReferences).length > 0) {
        throw new Error(`${contractName} needs library linking, which this build does not support; make the library functions internal`);
      }
      const deployedBytecode: Hex = `0x${c.evm.deployedBytecode.object}`;
      // Immutables (e.g. EIP712's cached domain separator) are written into the runtime code at deploy time, where solc
      // leaves zeros; on-chain code only matches runtimeCodeHash once these byte ranges are zeroed. AST ids are dropped.
      const immutableReferences = Object.values(c.evm.deployedBytecode.immutableReferences ?? {})
        .flat()
        .map(({ start, length }) => ({ start, length }))
        .sort((a, b) => a.start - b.start);
      const runtimeCodeHash = keccak256(deployedBytecode);
      runtimeHashes.push(runtimeCodeHash);
      const artifact: ArtifactFile = {
        contractName,
        sourceName,
        abi: canonical(c.abi) as Abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode,
        immutableReferences,
        runtimeCodeHash,
        compiler,
        sourceHash,
      };
      files.set(`${contractName}.json`, toJson(artifact));
    }
  }

  const names = [...seen.keys()].sort();
  const artifactParityHash = runtimeHashes.length > 0 ? keccak256(concat([...runtimeHashes].sort())) : keccak256('0x');
  files.set('index.json', toJson({ contracts: names, artifactParityHash, sourceHash, compiler }));
  return { files, sourceCount: ownFiles.length };
}

/** Names of the concrete (non-abstract) contracts a source unit defines, read from its AST. */
function deployableContracts(output: SolcOutput, sourceName: string): Set<string> {
  const nodes = output.sources?.[sourceName]?.ast.nodes;
  if (!nodes) throw new Error(`solc returned no AST for ${sourceName}`);
  return new Set(nodes.filter((n) => n.nodeType === 'ContractDefinition' && n.contractKind === 'contract' && n.abstract !== true).map((n) => n.name ?? ''));
}

class CompileFailed extends Error {}

function existingArtifacts(): string[] {
  if (!existsSync(ARTIFACTS_DIR)) return [];
  return readdirSync(ARTIFACTS_DIR).filter((f) => f.endsWith('.json')).sort();
}

function check(files: Map<string, string>): number {
  for (const [name, contents] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(ARTIFACTS_DIR, name);
    if (!existsSync(path)) {
      console.error(`artifacts/${name} is missing; run: npx tsx scripts/build-contracts.ts`);
      return 1;
    }
    if (readFileSync(path, 'utf8') !== contents) {
      console.error(`artifacts/${name} is stale; run: npx tsx scripts/build-contracts.ts`);
      return 1;
    }
  }
  for (const name of existingArtifacts()) {
    if (!files.has(name)) {
      console.error(`artifacts/${name} has no matching contract; run: npx tsx scripts/build-contracts.ts`);
      return 1;
    }
  }
  console.log(`artifacts up to date (${files.size - 1} contracts)`);
  return 0;
}

function write(files: Map<string, string>): void {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  // Drop artifacts of contracts that no longer exist so --check can pass right after a build.
  for (const name of existingArtifacts()) {
    if (!files.has(name)) {
      unlinkSync(join(ARTIFACTS_DIR, name));
      console.log(`removed artifacts/${name}`);
    }
  }
  for (const [name, contents] of files) {
    const path = join(ARTIFACTS_DIR, name);
    if (existsSync(path) && readFileSync(path, 'utf8') === contents) {
      console.log(`unchanged artifacts/${name}`);
      continue;
    }
    writeFileSync(path, contents);
    console.log(`wrote artifacts/${name}`);
  }
}

function main(): number {
  const checkMode = process.argv.includes('--check');
  let result: BuildResult;
  try {
    result = build();
  } catch (err) {
    // solc's formatted messages were already printed for CompileFailed; this is the one-line summary.
    console.error(`build-contracts: ${(err as Error).message}`);
    return 1;
  }
  if (checkMode) return check(result.files);
  write(result.files);
  return 0;
}

process.exitCode = main();
