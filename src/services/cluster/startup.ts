/**
 * One start-up at a time (docs/operations.md): a process that may lead holds the start-up lock while it reconciles the
 * relayer and verifies or deploys the contracts, so two processes started at once on a fresh chain never deploy the
 * same contract twice; the second one waits, then finds the first one's deployment records and verifies them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCK_NAMESPACES, type Coordinator } from '../../db/coordinator.ts';

const WAIT_MS = 250;

/** Takes the start-up lock, waiting while another process holds it; answers how to release it. */
export async function holdStartupLock(coordinator: Coordinator, progress: (line: string) => void): Promise<() => Promise<void>> {
  let told = false;
  while (!(await coordinator.tryLock(LOCK_NAMESPACES.startup, 1))) {
    if (!told) progress('cluster: another process of this deployment is starting; waiting for it to finish its start-up');
    told = true;
    await sleep(WAIT_MS);
  }
  return () => coordinator.unlock(LOCK_NAMESPACES.startup, 1);
}
