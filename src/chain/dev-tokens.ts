/**
 * The two collateral tokens of a development chain that svc does not start itself (an anvil of a test or a bench, given
 * as CHAIN_RPC_URL): TestUSDC and the PM token, deployed from `deployer` (which becomes their owner and holds the PM
 * supply). A real chain has its tokens already; their addresses come from the configuration.
 */
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './artifacts.ts';
import { chainDefinition } from './clients.ts';

/**
 * The settings every process of a deployment on such a chain shares (docs/operations.md "Running them"): the database,
 * the node, the operator key (the chain's dev account), the tokens, a test environment at depth 1.
 */
export function devChainEnv(o: { databaseUrl: string; rpcUrl: string; operatorKey: Hex; tokens: { pm: Address; usdc: Address } }): Record<string, string> {
  return {
    DATABASE_URL: o.databaseUrl,
    CHAIN_RPC_URL: o.rpcUrl,
    CHAIN_NAME: 'Base (local anvil)',
    CHAIN_CONFIRMATIONS: '1',
    SVC_ENVIRONMENT: 'test',
    OPERATOR_PRIVATE_KEY: o.operatorKey,
    PM_TOKEN_ADDRESS: o.tokens.pm,
    USDC_TOKEN_ADDRESS: o.tokens.usdc,
    SEED_DEMO_MARKETS: 'false',
  };
}

export async function deployDevTokens(opts: { rpcUrl: string; chainId: number; deployerKey: Hex }): Promise<{ pm: Address; usdc: Address }> {
  const chain = chainDefinition(opts.chainId, 'development chain', opts.rpcUrl);
  const deployer = privateKeyToAccount(opts.deployerKey);
  const wallet = createWalletClient({ chain, account: deployer, transport: http(opts.rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(opts.rpcUrl) });
  const deploy = async (name: 'ParticipationToken' | 'TestUSDC', args: unknown[]): Promise<Address> => {
    const artifact = loadArtifact(name);
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} failed (${hash})`);
    return receipt.contractAddress;
  };
  return { pm: await deploy('ParticipationToken', [deployer.address, parseEther('1000000000')]), usdc: await deploy('TestUSDC', [deployer.address]) };
}
