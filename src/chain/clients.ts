// viem clients for the configured chain; all chain I/O goes through these.
import { createPublicClient, defineChain, http, type Chain, type PublicClient } from 'viem';

export function chainDefinition(id: number, name: string, rpcUrl: string): Chain {
  return defineChain({
    id,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export function createChainClient(chain: Chain, rpcUrl: string): PublicClient {
  return createPublicClient({ chain, transport: http(rpcUrl, { retryCount: 1, timeout: 10_000 }) });
}
