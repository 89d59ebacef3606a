// Tests the /proc stat reader that the anvil pid file, the bench's database CPU and its per-thread CPU rely on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { procStat, statAt } from './anvil-pidfile.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-procstat-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('statAt', () => {
  it('reads a name with spaces and parentheses, the state, the parent and user + system ticks', () => {
    // Fields after the name: state(3) ppid(4) pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) …
    const file = join(dir, 'stat');
    writeFileSync(file, '4242 (V8 (Default) Worker) S 17 4242 4242 0 -1 4194368 900 0 0 0 123 45 0 0 20 0 9 0 1000 0 0\n');
    expect(statAt(file)).toEqual({ name: 'V8 (Default) Worker', state: 'S', ppid: 17, cpuTicks: 168 });
  });

  it('reads this process and each of its threads where /proc exists; undefined for a file that is gone', () => {
    expect(statAt(join(dir, 'missing'))).toBeUndefined();
    const self = procStat(process.pid);
    if (!self) return; // no /proc on this platform: nothing to read
    expect(self.ppid).toBe(process.ppid);
    const main = statAt(`/proc/self/task/${process.pid}/stat`);
    expect(main?.ppid).toBe(process.ppid);
    expect(main!.cpuTicks).toBeLessThanOrEqual(procStat(process.pid)!.cpuTicks);
  });
});
