import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { ROOT } from './processes.js';

/** What one one-shot command beside the instances came to. */
export interface OneShotRun {
  command: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

function runCommand(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<OneShotRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/wisbridge.js'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = (chunk: Buffer) => appendFileSync(logFile, chunk);
    child.stdout!.on('data', log);
    child.stderr!.on('data', log);
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ command: args[0], code, signal }));
  });
}

/**
 * `wisbridge batch` (the inbound job only) and `wisbridge retry` run beside the instances, as an operator would: the
 * retry names a failed file when there is one, else the newest file (likely one an instance works on: refused). Each
 * must end by itself with its exit code (0, 1, or 2 for a refusal); the run's checks then prove that nothing they did
 * applied a row twice or moved a file twice.
 */
export async function runOneShots(configFile: string, job: string, env: NodeJS.ProcessEnv, journal: () => pg.Client, logFile: string): Promise<OneShotRun[]> {
  const c = journal();
  let name: string | undefined;
  try {
    await c.connect();
    name = (await c.query(`SELECT name FROM files ORDER BY (status = 'failed') DESC, id DESC LIMIT 1`)).rows[0]?.name;
  } finally {
    await c.end().catch(() => undefined);
  }
  return Promise.all([
    runCommand(['batch', '--config', configFile, '--job', job], env, logFile),
    ...(name === undefined ? [] : [runCommand(['retry', '--config', configFile, '--file', name], env, logFile)]),
  ]);
}

/** A one-shot that did not end by itself with an exit code of the table: a problem of the run. */
export const oneShotProblems = (runs: OneShotRun[]): string[] =>
  runs.filter((r) => r.code === null || r.code > 2).map((r) => `one-shot ${r.command} beside the instances ended ${r.signal ?? `with exit ${r.code}`}`);
