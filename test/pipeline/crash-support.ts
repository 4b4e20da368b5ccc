import { expect } from 'vitest';
import { setFaults } from '../support/emulator.js';
import { cli, finished, korr, type Workspace } from './helpers.js';

export const PLAIN = Array.from({ length: 60 }, (_, i) => i + 1).filter((n) => n % 10 !== 3 && n % 25 !== 7).map((n) => `SKU-${String(n).padStart(5, '0')}`);

/** Drops an adjustments file of `count` rows over the plain SKUs, each +1, references PREFIX-1… (one move each). */
export function dropPlainAdjustments(ws: Workspace, name: string, count: number, prefix: string): void {
  ws.drop(name, korr(Array.from({ length: count }, (_, i) => `${PLAIN[i % PLAIN.length]};1;Fund;${prefix}-${i + 1};19.11.2026;;ACME`)));
}

/** Starts `wisbridge batch` and SIGKILLs it once `ready()` holds (checked every 50 ms). */
export async function killMidFile(ws: Workspace, ready: () => Promise<boolean>, env: NodeJS.ProcessEnv = {}): Promise<{ stderr: string }> {
  const child = cli(['batch', '--config', ws.configFile], env);
  const exit = finished(child);
  const deadline = Date.now() + 25_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`the batch never got far enough: ${(await exit.catch(() => null))?.stderr ?? ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  const result = await exit;
  expect(result.signal, `the batch ended before the kill (code ${result.code}): ${result.stdout} ${result.stderr}`).toBe('SIGKILL');
  return result;
}

/** Clears the faults and runs `wisbridge batch` to the end. */
export async function restart(emu: { url: string }, ws: Workspace, env: NodeJS.ProcessEnv = {}) {
  await setFaults(emu, {});
  const result = await finished(cli(['batch', '--config', ws.configFile], env));
  expect([0, 1], result.stderr).toContain(result.code);
  return result;
}
