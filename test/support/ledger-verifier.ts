// The test-only LedgerProofVerifier (OpenZeppelin MerkleProof.verify over our leaf encoding), compiled with
// solc-js and the build's settings: it is a library without an artifact, deployed only by tests.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

export /** Compiles contracts/test/LedgerProofVerifier.sol with the build's settings; it is test-only, so it has no artifact. */
function compileVerifier(): { abi: Abi; bytecode: Hex } {
  const require = createRequire(import.meta.url);
  const source = 'contracts/test/LedgerProofVerifier.sol';
  const input = {
    language: 'Solidity',
    sources: { [source]: { content: readFileSync(new URL(`../../${source}`, import.meta.url), 'utf8') } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const findImports = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), 'utf8') };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  const compile = solc.compile as (input: string, callbacks: { import: typeof findImports }) => string;
  const output = JSON.parse(compile(JSON.stringify(input), { import: findImports })) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts[source]!.LedgerProofVerifier!;
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

