import { afterEach } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { EventEmitter } from 'node:events';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger, type LogEvent, type Logger } from '../../src/log.js';
import { tcpProxy } from '../support/tcp-proxy.js';

/** A temp folder with a configuration file (YAML text) beside a local drop `wms` under `drop/`. */
export async function tempConfig(yaml: string, options: { load?: boolean } = {}): Promise<{ dir: string; file: string; loaded: LoadedConfig; cleanup(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-service-'));
  for (const folder of ['inbox', 'outbox', 'archive', 'error']) mkdirSync(join(dir, 'drop', folder), { recursive: true });
  const file = join(dir, 'wisbridge.yaml');
  writeFileSync(file, yaml);
  const loaded = options.load === false ? (undefined as unknown as LoadedConfig) : await loadConfig(file);
  return { dir, file, loaded, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A service `main` at `url` (`extra`: lines of its own) and the local drop `wms`, on `journal` (a path or a PostgreSQL URL). */
export const baseConfig = (url = 'http://127.0.0.1:9', extra = '', journal = 'journal.sqlite') => `
journal: ${journal}
mappings: ${JSON.stringify(join(process.cwd(), 'mappings'))}
services:
  main:
    url: ${url}
    token: { env: WISBRIDGE_TEST_TOKEN }${extra}
drops:
  wms:
    type: local
    root: drop
    settle_ms: 0
    watch_events: false
    poll_interval_ms: 50
`;

export const BASE_CONFIG = baseConfig();

/** An inbound job of stock adjustments on `drop`, as an item of `inbound:`; `extra` are lines of its own, indented. */
export const adjustmentsJob = (name: string, drop: string, extra = '') =>
  `  - name: ${name}\n    drop: ${drop}\n    service: main\n    mappings: [inventory-adjustments]\n${extra}`;

/** A local drop whose folder does not exist (its inbox cannot be listed), as an item of `drops:`. */
export const unlistableDrop = (name: string) => `  ${name}:\n    type: local\n    root: no-such-folder\n    poll_interval_ms: 50\n`;

/** One inbound job `stock` (adjustments from the drop `wms`) and the metrics listener on a free port. */
export const stockConfig = (url: string, batchSize = 1) => `${baseConfig(url, `\n    batch_size: ${batchSize}`)}
inbound:
  - name: stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
metrics: { host: 127.0.0.1, port: 0 }
`;

/** A KORR (adjustments) file: semicolon, windows-1252-compatible ASCII; one row per [sku, quantity, reference]. */
export function korrFile(rows: Array<[string, number, string]>): string {
  return ['Artikel;Menge;Grund;Beleg;Datum;Charge;Mandant', ...rows.map(([sku, q, ref]) => `${sku};${q};Korrektur;${ref};19.11.2026;;`)].join('\r\n') + '\r\n';
}

/** Polls until fn returns a truthy value (no timing assertion: the test's own timeout bounds it). */
export async function until<T>(fn: () => T | Promise<T>, what: string, intervalMs = 50): Promise<NonNullable<T>> {
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    if (process.env.WISBRIDGE_DEBUG_UNTIL) console.log(`waiting for ${what}`);
  }
}

/** A log record as the JSON logger writes it. */
export type LogRecord = Record<string, any>;

/** A JSON logger whose records are collected in memory, in order; `waitForEvent` waits on them. */
export function memoryLogger(): { logger: Logger; records: LogRecord[]; added: EventEmitter<{ record: [LogRecord] }> } {
  const records: LogRecord[] = [];
  const added = new EventEmitter<{ record: [LogRecord] }>();
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) {
        if (!line.trim()) continue;
        const record = JSON.parse(line) as LogRecord;
        records.push(record);
        added.emit('record', record);
      }
      callback();
    },
  });
  return { logger: createLogger({ level: 'debug', pretty: false, destination }), records, added };
}

/**
 * The first record of `log` with the event code `event` (src/log.ts, LOG_EVENTS) that `match` accepts, logged already
 * or once it is (no timing: the test's own timeout bounds the wait).
 */
export function waitForEvent(log: Pick<ReturnType<typeof memoryLogger>, 'records' | 'added'>, event: LogEvent, match: (record: LogRecord) => boolean = () => true): Promise<LogRecord> {
  const wanted = (record: LogRecord) => record.event === event && match(record);
  const found = log.records.find(wanted);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    const listener = (record: LogRecord) => {
      if (!wanted(record)) return;
      log.added.off('record', listener);
      resolve(record);
    };
    log.added.on('record', listener);
  });
}

/** The records of `log` with the event code `event`, in the order they were logged. */
export const eventsOf = (records: readonly LogRecord[], event: LogEvent): LogRecord[] => records.filter((r) => r.event === event);

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

/** Undo steps run after each test of the file, the last added first (servers, bridges, temp folders, faults). */
export function useCleanups(): Array<() => void | Promise<void>> {
  const cleanups: Array<() => void | Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });
  return cleanups;
}

/**
 * A test database reached through a cuttable proxy: `journal` is its configuration value (JSON, the proxy's port in
 * its URL), `proxy` cuts and restores the way to it. Closed after the test.
 */
export async function proxiedJournal(db: { config: object; url: string }, serverPort: number, cleanups: Array<() => void | Promise<void>>) {
  const proxy = await tcpProxy(serverPort);
  cleanups.push(() => proxy.close());
  return { proxy, journal: JSON.stringify({ ...db.config, url: db.url.replace(`:${serverPort}/`, `:${proxy.port}/`) }) };
}
