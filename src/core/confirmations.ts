/**
 * How many blocks (its own included) a transaction's block needs before svc treats it as final: a relayer
 * transaction as confirmed, a log as indexed, a payment as credited. docs/chain.md "Confirmation depth".
 *
 * The embedded anvil mines one block per transaction and never reorganises, so 1 is exact there. For a node svc
 * does not run, the default is per chain, from how deep its reorganisations have been seen to go; CHAIN_CONFIRMATIONS
 * overrides it (set 1 for a local node that only mines on demand, or every wait would hang).
 */
export const EMBEDDED_CONFIRMATIONS = 1;

/** Known chains: Base and Base Sepolia (2 s blocks; 10 blocks is 20 s), Ethereum and Sepolia (12 s blocks). */
const KNOWN_CHAIN_CONFIRMATIONS: Readonly<Record<number, number>> = {
  8453: 10,
  84532: 10,
  1: 12,
  11155111: 12,
};

/** For a chain not listed: as deep as Ethereum's. */
export const UNKNOWN_CHAIN_CONFIRMATIONS = 12;

export function defaultConfirmations(chainId: number, mode: 'embedded' | 'external'): number {
  if (mode === 'embedded') return EMBEDDED_CONFIRMATIONS;
  return KNOWN_CHAIN_CONFIRMATIONS[chainId] ?? UNKNOWN_CHAIN_CONFIRMATIONS;
}
