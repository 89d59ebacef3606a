// The operator (relayer) key: from OPERATOR_PRIVATE_KEY, or in embedded mode generated once and
// kept under DATA_DIR with mode 0600, then funded from anvil's dev account.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import path from 'node:path';
import { createWalletClient, http, parseEther, type Chain, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export async function loadOrCreateOperatorKey(file: string): Promise<Hex> {
  if (existsSync(file)) {
    const key = (await readFile(file, 'utf8')).trim();
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`operator key file ${file} is not a 0x-prefixed 32-byte hex key`);
    return key as Hex;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const key = generatePrivateKey();
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  return key;
}

/** Tops the operator up from a dev account when it holds less than `min` ETH (local chains only). */
export async function fundFromDevAccount(opts: {
  client: PublicClient;
  chain: Chain;
  rpcUrl: string;
  devKey: Hex;
  operator: Hex;
  min?: bigint;
  amount?: bigint;
}): Promise<bigint> {
  const min = opts.min ?? parseEther('10');
  const balance = await opts.client.getBalance({ address: opts.operator });
  if (balance >= min) return 0n;
  const amount = opts.amount ?? parseEther('1000');
  const wallet = createWalletClient({ chain: opts.chain, transport: http(opts.rpcUrl), account: privateKeyToAccount(opts.devKey) });
  const hash = await wallet.sendTransaction({ to: opts.operator, value: amount });
  await opts.client.waitForTransactionReceipt({ hash });
  return amount;
}
