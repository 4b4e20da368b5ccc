import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { openJournal } from '../../src/journal/index.js';
import { runInboundJob } from '../../src/pipeline/index.js';
import type { Logger } from '../../src/log.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { testHooks } from '../../src/journal/testing.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const SAMPLES = join(ROOT, 'samples');

/** An adjustments file in the default KORR dialect (semicolons, latin1): the header, then the given rows. */
export const korr = (rows: readonly string[]): Buffer =>
  Buffer.from(['Artikel;Menge;Grund;Beleg;Datum;Charge;Mandant', ...rows, ''].join('\n'), 'latin1');

/** One inbound sample of every document type in samples/ (ok, refused, rejected, skipped rows; multi-line documents). */
export const INBOUND_SAMPLES = [
  'ACK_ASN_20261120.csv', 'ACK_IT_20261120.csv', 'ACK_OT_20261120.csv', 'ACK_RMA_20261120.csv', 'ACK_SO_20261120.csv',
  'COUNT_20261120.csv', 'FAIL_ASN_20261120.csv', 'FAIL_SO_20261120.csv', 'GR_20261120.csv', 'KORR_20261120.csv', 'OTSHIP_20261120.txt',
  'PICK_20261120.csv', 'RET_20261120.csv', 'SHIP_20261120_flat.csv', 'SHIPPKG_20261120.csv', 'WE_UML_20261120.csv', 'GRFIX_20261120.txt',
] as const;

/** A flat ship mapping (ORDER, SKU, QTY: one line per row, grouped by ORDER) for files named `files`. */
export const flatShipMapping = (files: string, sorted: boolean): string => [
  'document: customerShipments.ship', `files: "${files}"`, `grouping: { sorted: ${sorted} }`,
  'request:', '  key: ORDER', '  fields:', '    id: { column: ORDER, id_of: customerShipment }',
  '  lists:', '    lines:', '      fields:', '        product_code: SKU', '        quantity: { column: QTY, type: number }', '',
].join('\n');

export interface Workspace {
  dir: string;
  configFile: string;
  folder(role: 'inbox' | 'outbox' | 'archive' | 'error'): string;
  /** Copies a sample (or writes text) into the inbox. */
  drop(name: string, content?: string | Buffer, as?: string): void;
  files(role: 'inbox' | 'outbox' | 'archive' | 'error'): string[];
  read(role: 'inbox' | 'outbox' | 'archive' | 'error', name: string): string;
  /** Result rows as objects (header keys). */
  result(name: string): Record<string, string>[];
  runtime(logger?: Logger): Promise<Runtime>;
}

export interface WorkspaceOptions {
  url: string;
  token: string;
  batchSize?: number;
  maxAttempts?: number;
  requestsInFlight?: number;
  warehouse?: number;
  /** YAML of the drop (default: a local drop under the workspace). */
  dropYaml?: string;
  /** Root of the drop's folders as seen locally (SFTP: the server's folder). */
  dropRoot?: string;
  inboundJobs?: string;
  /** Extra mapping definitions (name → YAML) beside the default ones. */
  extraMappings?: Record<string, string>;
  /** Extra top-level YAML (e.g. export jobs). */
  extraYaml?: string;
  /** The configuration's `mapping_threads` (`from_bytes: 1`: every file that can be is mapped on a thread of its own). */
  mappingThreads?: { max?: number; from_bytes?: number; heap_mb?: number };
}

export function workspace(options: WorkspaceOptions): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'wb-pipeline-'));
  const dropRoot = options.dropRoot ?? join(dir, 'drop');
  for (const f of ['inbox', 'outbox', 'archive', 'error']) mkdirSync(join(dropRoot, f), { recursive: true });
  writeFileSync(join(dir, 'token'), options.token, { mode: 0o600 });
  const drop = options.dropYaml ?? `    type: local\n    root: ${dropRoot}\n    settle_ms: 0\n    watch_events: false\n    fsync: false`;
  let mappingsDir = join(ROOT, 'mappings');
  if (options.extraMappings) {
    mappingsDir = join(dir, 'mappings');
    mkdirSync(mappingsDir);
    for (const n of readdirSync(join(ROOT, 'mappings'))) copyFileSync(join(ROOT, 'mappings', n), join(mappingsDir, n));
    for (const [n, yaml] of Object.entries(options.extraMappings)) writeFileSync(join(mappingsDir, `${n}.yaml`), yaml);
  }
  const configFile = join(dir, 'wisbridge.yaml');
  writeFileSync(configFile, [
    `journal: ${join(dir, 'journal.sqlite')}`,
    `mappings: ${mappingsDir}`,
    'services:',
    '  wis:',
    `    url: ${options.url}`,
    '    token: { file: token }',
    `    batch_size: ${options.batchSize ?? 100}`,
    `    max_attempts: ${options.maxAttempts ?? 3}`,
    ...(options.requestsInFlight ? [`    requests_in_flight: ${options.requestsInFlight}`] : []),
    '    request_timeout_ms: 10000',
    ...(options.warehouse ? [`    warehouse: ${options.warehouse}`] : []),
    'drops:',
    '  wms:',
    drop,
    'inbound:',
    options.inboundJobs ?? '  - { name: wms-in, drop: wms, service: wis }',
    ...(options.extraYaml ? [options.extraYaml] : []),
    ...(options.mappingThreads ? [`mapping_threads: ${JSON.stringify(options.mappingThreads)}`] : []),
    'log: { level: fatal }',
    '',
  ].join('\n'));
  const folder = (role: string) => join(dropRoot, role);
  return {
    dir, configFile, folder,
    drop(name, content, as) {
      const target = join(folder('inbox'), as ?? name);
      if (content === undefined) copyFileSync(join(SAMPLES, name), target);
      else writeFileSync(target, content);
    },
    files: (role) => readdirSync(folder(role)).filter((n) => !n.startsWith('.')).sort(),
    read: (role, name) => readFileSync(join(folder(role), name), 'utf8'),
    result(name) {
      const text = readFileSync(join(folder('outbox'), name), 'utf8');
      return parseCsv(text);
    },
    async runtime(logger?: Logger) {
      return createRuntime(await loadConfig(configFile), { logger });
    },
  };
}

/** A small RFC 4180 reader for result files (quoted fields, "" escapes, CRLF). */
/** Runs the workspace's first inbound job once with a fresh runtime, closed afterwards even when the run throws. */
export async function runInboundOnce(ws: Workspace, logger?: Logger) {
  const runtime = await ws.runtime(logger);
  try {
    return await runInboundJob(runtime, runtime.loaded.config.inbound[0]!);
  } finally {
    await runtime.close();
  }
}

export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += c;
  }
  if (field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  const [header, ...data] = rows;
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

/** Runs `wisbridge ARGS` as a child process. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [join(ROOT, 'bin/wisbridge.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolveExit) => child.on('close', (code, signal) => resolveExit({ code, signal, stdout, stderr })));
}

/** A work list SO-1001..SO-1003 recorded as written with the policy on-confirmation (waiting for the WMS's ACK file). */
export async function exportAwaitingConfirmation(ws: Workspace): Promise<number> {
  const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
  try {
    const exportId = await journal.beginExport({
      workType: 'customerShipments', fileName: 'SO_WORK_1.csv', policy: 'on-confirmation',
      records: [{ id: 1001, number: 'SO-1001' }, { id: 1002, number: 'SO-1002' }, { id: 1003, number: 'SO-1003' }],
    });
    await journal.markExportWritten(exportId);
    return exportId;
  } finally {
    await journal.close();
  }
}

/** [id, ack status, acknowledged_at set] of each record of an export. */
export async function exportAckStatuses(ws: Workspace, exportId: number): Promise<Array<[number, string, boolean]>> {
  const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
  try {
    return (await testHooks(journal).exportRecords(exportId)).map((r) => [r.id, r.ackStatus, r.acknowledgedAt !== null]);
  } finally {
    await journal.close();
  }
}
