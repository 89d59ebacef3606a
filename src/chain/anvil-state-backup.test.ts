// The last good copy of the embedded anvil's state file, against the real binary: a whole dump is copied, a cut one
// never is, and an anvil whose state file was cut short mid-write starts again from the copy with what it held.
import { mkdtempSync, readFileSync, rmSync, truncateSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../core/logger.ts';
import { ANVIL_DEV_PRIVATE_KEY, startAnvil, type AnvilHandle } from './anvil.ts';
import { backupPathOf, keepStateBackup, restoreStateBackup } from './anvil-state-backup.ts';
import { waitFor } from '../../test/support/wait.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-anvil-backup-'));
const handles: AnvilHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.stop();
  rmSync(dir, { recursive: true, force: true });
});

const RECIPIENT: Address = '0x000000000000000000000000000000000000bEEF';
const dumped = (stateFile: string): string | null => {
  try {
    const text = readFileSync(stateFile, 'utf8');
    return JSON.parse(text) && text.includes(RECIPIENT.slice(2).toLowerCase()) ? text : null;
  } catch {
    return null;
  }
};

describe('anvil state backup', () => {
  it('copies a whole dump, never a cut one, and restores it in place of a state file cut short', async () => {
    const stateFile = join(dir, 'state.json');
    const anvil = await startAnvil({ stateFile });
    handles.push(anvil);
    const chain = { ...foundry, id: anvil.chainId };
    const wallet = createWalletClient({ chain, account: privateKeyToAccount(ANVIL_DEV_PRIVATE_KEY), transport: http(anvil.rpcUrl) });
    const reader = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    await reader.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: RECIPIENT, value: parseEther('1.5') }) });
    // anvil dumps once a second: wait for a dump that holds the transfer.
    await waitFor(() => dumped(stateFile), { what: 'a state dump holding the transfer', timeoutMs: 15_000 });

    const warnings: unknown[] = [];
    const log = { warn: (obj: unknown) => warnings.push(obj) } as unknown as Logger;
    const backup = keepStateBackup(stateFile, { intervalMs: 3_600_000, log });
    try {
      // The dump is read and parsed off the main thread: it only grows, and parsing it here stalled every request.
      const parse = vi.spyOn(JSON, 'parse');
      try {
        expect(await backup.runOnce()).toBe(true);
        expect(parse).not.toHaveBeenCalled();
      } finally {
        parse.mockRestore();
      }
      expect(JSON.parse(readFileSync(backupPathOf(stateFile), 'utf8'))).toBeTruthy();
      await anvil.stop();
      // Cut short as a kill during anvil's write leaves it: the backup does not take it.
      truncateSync(stateFile, Math.floor(statSync(stateFile).size / 2));
      expect(await backup.runOnce()).toBe(false);
      expect(dumped(backupPathOf(stateFile))).not.toBeNull();
      expect(warnings).toEqual([]);
    } finally {
      backup.stop();
    }
    await expect(startAnvil({ stateFile })).rejects.toThrow(/failed to parse json/);
    expect(await restoreStateBackup(stateFile)).toBe(true);
    const again = await startAnvil({ stateFile });
    handles.push(again);
    const balance = await createPublicClient({ chain: { ...foundry, id: again.chainId }, transport: http(again.rpcUrl) }).getBalance({ address: RECIPIENT });
    expect(balance).toBe(parseEther('1.5'));
  });

  it('has nothing to restore without a whole copy', async () => {
    const stateFile = join(dir, 'other', 'state.json');
    expect(existsSync(backupPathOf(stateFile))).toBe(false);
    expect(await restoreStateBackup(stateFile)).toBe(false);
  });
});
