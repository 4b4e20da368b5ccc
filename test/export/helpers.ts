import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { stringify } from 'yaml';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import type { ExportJob } from '../../src/config/schema.js';
import { runExportJob, type ExportSummary, type RunExportOptions } from '../../src/export/index.js';
import { openJournal, type Journal } from '../../src/journal/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import type { Logger } from '../../src/log.js';
import type { SftpServer } from '../support/sftp-server.js';

export const REPO = resolve(import.meta.dirname, '../..');
export const MAPPINGS = join(REPO, 'mappings');
export const TOKEN_ENV = 'WISBRIDGE_EXPORT_TEST_TOKEN';

export type JobInput = Partial<ExportJob> & Pick<ExportJob, 'name' | 'work_type' | 'mapping'>;

export const MAPPING_OF: Record<ExportJob['work_type'], string> = {
  customerShipments: 'customer-shipments-export',
  outboundTransfers: 'outbound-transfers-export',
  inboundTransfers: 'inbound-transfers-export',
  supplierShipments: 'supplier-shipments-export',
  customerReturns: 'customer-returns-export',
  products: 'products-export',
};

export interface Setup {
  dir: string;
  configFile: string;
  /** Local path of the drop's outbox (also for SFTP: the server shares this machine's file system). */
  outbox: string;
  loaded: LoadedConfig;
  runtime: Runtime;
  run(job: string, options?: RunExportOptions): Promise<ExportSummary>;
  /** Work files (not result files, not temporary names) in the outbox, sorted. */
  outboxFiles(): string[];
  /** A second journal connection (read what the bridge recorded). */
  journal(): Promise<Journal>;
  cleanup(): Promise<void>;
}

/**
 * A configuration file in a temporary folder: one service (the emulator, token from an environment variable),
 * one drop (local folder, or the real OpenSSH server), the repository's mappings, a journal file, and the jobs.
 */
export async function setUp(emu: { url: string; token: string }, jobs: JobInput[], options: { sftp?: SftpServer; mappings?: string; logger?: Logger; partners?: Record<string, unknown> } = {}): Promise<Setup> {
  process.env[TOKEN_ENV] = emu.token;
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-export-'));
  let drop: Record<string, unknown> = { type: 'local', root: join(dir, 'drop'), fsync: false };
  let outbox = join(dir, 'drop', 'outbox');
  if (options.sftp) {
    const s = options.sftp;
    const root = join(s.root, `export-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(root, { recursive: true });
    if (process.getuid?.() === 0) chownSync(root, s.uid, s.gid);
    writeFileSync(join(dir, 'client_key'), s.privateKey, { mode: 0o600 });
    drop = { type: 'sftp', host: s.host, port: s.port, username: s.username, private_key_path: 'client_key', host_key_fingerprint: s.hostKeyFingerprint, root };
    outbox = join(root, 'outbox');
  }
  const config = {
    journal: 'journal.sqlite',
    mappings: options.mappings ?? MAPPINGS,
    services: { wis: { url: emu.url, token: { env: TOKEN_ENV }, concurrency: 4, max_attempts: 2 } },
    drops: { wms: drop },
    ...(options.partners ? { partners: options.partners } : {}),
    exports: jobs.map((j) => ({ drop: 'wms', service: 'wis', ...j })),
    log: { level: 'warn' },
  };
  const configFile = join(dir, 'wisbridge.yaml');
  writeFileSync(configFile, stringify(config));
  const loaded = await loadConfig(configFile);
  const runtime = createRuntime(loaded, { logger: options.logger });
  const job = (name: string) => loaded.config.exports.find((j) => j.name === name)!;
  return {
    dir, configFile, outbox, loaded, runtime,
    run: (name, runOptions) => runExportJob(runtime, job(name), runOptions),
    outboxFiles: () => listOutbox(outbox).filter((f) => !f.endsWith('.ack.csv')),
    journal: () => openJournal(loaded.journal),
    async cleanup() {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function listOutbox(outbox: string): string[] {
  try {
    return readdirSync(outbox).filter((f) => !f.startsWith('.')).sort();
  } catch {
    return [];
  }
}

/** Reads a CSV written by the bridge: BOM and encoding handled, rows as arrays (header included). */
export function readCsv(file: string, options: { delimiter?: string; encoding?: 'utf-8' | 'windows-1252' } = {}): string[][] {
  const bytes = readFileSync(file);
  const text = options.encoding === 'windows-1252' ? iconv.decode(bytes, 'win1252') : bytes.toString('utf8');
  return parse(text, { delimiter: options.delimiter ?? ',', bom: true, relax_column_count: true }) as string[][];
}

/** Reads a flat CSV with a header into objects. */
export function readRows(file: string, options: { delimiter?: string; encoding?: 'utf-8' | 'windows-1252' } = {}): Record<string, string>[] {
  const [header, ...rows] = readCsv(file, options);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/wisbridge.js ARGS` as a separate process (a real crash kills only it). */
export function wisbridge(args: string[], env: Record<string, string> = {}): Promise<ChildResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/wisbridge.js'), ...args], {
      cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}

export async function admin(emu: { url: string }, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${emu.url}/_admin/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A pino logger whose JSON lines are kept in `lines` (to check what operators would see). */
export function captureLogger(): { logger: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}
