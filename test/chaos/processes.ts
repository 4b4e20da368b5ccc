import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wisbridge.js');

/**
 * One pino record of a bridge (JSON line on stderr); lines that are not JSON keep their text in `msg`. `seenAt` is
 * when the harness read it, on the harness's clock: a bridge's own `time` is its clock's, which may run off.
 */
export type LogRecord = Record<string, any> & { time?: number; msg?: string; seenAt: number };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * One `wisbridge run` process, the way systemd or Docker runs it: its JSON log lines collected in memory and
 * appended to a file (read after a failure), its exit awaited. `slot` is the instance's place among the configured
 * instances (its configuration file); `generation` counts the processes started for that slot.
 */
export class BridgeProcess {
  readonly child: ChildProcess;
  readonly logs: LogRecord[] = [];
  readonly exited: Promise<Exit>;
  private buffer = '';

  constructor(readonly slot: number, readonly generation: number, configFile: string, readonly logFile: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [BIN, 'run', '--config', configFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      appendFileSync(logFile, text);
      this.buffer += text;
      let nl;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        try {
          this.logs.push({ ...(JSON.parse(line) as Record<string, any>), seenAt: Date.now() });
        } catch {
          this.logs.push({ msg: line, raw: true, seenAt: Date.now() });
        }
      }
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get label(): string {
    return `i${this.slot}.${this.generation}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The instance id the bridge registered as (`instance registered`: `${host}-${pid}-${random}`), once it has. */
  get instanceId(): string | undefined {
    const id = this.logs.find((r) => r.msg === 'instance registered')?.instance;
    return typeof id === 'string' ? id : undefined;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(this.pid, signal);
    } catch {
      // exited meanwhile
    }
  }

  /** Resolves with the first log record that matches, or undefined after `timeoutMs` or when the process exits. */
  async waitForLog(match: (record: LogRecord) => boolean, timeoutMs: number): Promise<LogRecord | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (let seen = 0; Date.now() < deadline; await sleep(50)) {
      for (; seen < this.logs.length; seen++) if (match(this.logs[seen]!)) return this.logs[seen];
      if (!this.running) return undefined;
    }
    return undefined;
  }

  /** The last lines of its log, for a failure message. */
  tail(lines = 15): string {
    return this.logs.slice(-lines).map((r) => `  ${this.label} ${JSON.stringify(r)}`).join('\n');
  }
}

/**
 * Graceful stop of every process still running: SIGCONT first (a stopped process cannot act on SIGTERM), SIGTERM,
 * and SIGKILL for those that have not exited within `timeoutMs`.
 */
export async function stopAll(processes: BridgeProcess[], timeoutMs: number): Promise<Array<{ label: string; exit: Exit; forced: boolean }>> {
  const alive = processes.filter((p) => p.running);
  for (const p of alive) {
    p.signal('SIGCONT');
    p.signal('SIGTERM');
  }
  return Promise.all(alive.map(async (p) => {
    const timer = sleep(timeoutMs).then(() => 'timeout' as const);
    const first = await Promise.race([p.exited, timer]);
    if (first !== 'timeout') return { label: p.label, exit: first, forced: false };
    p.signal('SIGKILL');
    return { label: p.label, exit: await p.exited, forced: true };
  }));
}

/** The emulator in a process of its own (as bench/ runs it): its CPU and event loop are not the test's. */
export async function startEmulatorProcess(options: { scale: 'small' | 'medium'; seed: number; logFile: string; port?: number; db?: string }): Promise<{ url: string; token: string; child: ChildProcess; stop(): Promise<void> }> {
  const state = options.db === undefined ? [] : ['--db', options.db];
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', String(options.port ?? 0), ...state, '--today', '2026-11-22', '--scale', options.scale, '--seed', String(options.seed)], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WISBRIDGE_LOG_LEVEL: 'warn' },
  });
  child.stderr!.on('data', (chunk: Buffer) => appendFileSync(options.logFile, chunk));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`the emulator did not start within 60 s: ${text}`)), 60_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const m = /listening on (http:\/\/\S+)/.exec(text);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the emulator exited (${code}) before listening: ${text}`));
      });
    });
    const res = await fetch(`${url}/_admin/tokens`, { method: 'POST', body: JSON.stringify({ warehouses: [1], expires_in: 7200 }), headers: { 'content-type': 'application/json' } });
    const { token } = (await res.json()) as { token: string };
    return { url, token, child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
