import { pruneDropFolders, type FolderPruneResult } from '../drops/index.js';
import { describeError, WisbridgeError } from '../errors.js';
import type { OperatorJournal, PruneReport } from '../journal/index.js';
import { silentLogger, type Logger } from '../log.js';
import type { RuntimeParts } from '../runtime/runtime.js';

const DAY_MS = 24 * 3600 * 1000;
const UNITS: Record<string, number> = { d: DAY_MS, h: 3600 * 1000 };

/** `30d` or `12h` → milliseconds (USAGE error otherwise). */
export function parseAge(text: string): number {
  const match = /^(\d+)\s*([dh])$/i.exec(text.trim());
  if (!match || Number(match[1]) === 0) throw new WisbridgeError('USAGE', `an age is a positive number of days or hours, e.g. 30d or 12h; got "${text}"`);
  return Number(match[1]) * UNITS[match[2].toLowerCase()];
}

export interface RetentionReport {
  /** Files finished before this instant were pruned from the journal (absent when the journal was not pruned). */
  olderThan?: string;
  journal?: PruneReport;
  drops: Array<{ drop: string; folders: FolderPruneResult[] }>;
  /** Drops whose folders could not be cleaned (the rest went on). */
  errors: Array<{ drop: string; error: string }>;
}

export interface RetentionOptions {
  /** Prune the journal rows of files finished longer ago than this (ms); the journal is left alone when absent. */
  journalAgeMs?: number;
  /** Clean archive/ and outbox/ of the drops that have a retention set. */
  drops: boolean;
  now: number;
  signal?: AbortSignal;
  logger?: Logger;
}

/** One retention pass: journal prune, then the drops' archive/ and outbox/ (`wisbridge journal prune`, the `run` retention tick). */
export async function runRetention(runtime: RuntimeParts<'loaded' | 'drop', Pick<OperatorJournal, 'pruneJournal'>>, options: RetentionOptions): Promise<RetentionReport> {
  const logger = options.logger ?? silentLogger;
  const report: RetentionReport = { drops: [], errors: [] };
  if (options.journalAgeMs !== undefined) {
    report.olderThan = new Date(options.now - options.journalAgeMs).toISOString();
    const journal = await runtime.journal();
    const started = performance.now();
    report.journal = await journal.pruneJournal({ olderThan: report.olderThan, signal: options.signal });
    logger.info({ olderThan: report.olderThan, ...report.journal, ms: Math.round(performance.now() - started) }, 'journal pruned');
  }
  if (!options.drops) return report;
  for (const [key, config] of Object.entries(runtime.loaded.config.drops)) {
    if (config.archiveRetentionDays === undefined && config.outboxRetentionDays === undefined) continue;
    if (options.signal?.aborted) break;
    try {
      const folders = await pruneDropFolders(await runtime.drop(key), config, options.now, options.signal);
      report.drops.push({ drop: key, folders });
      const removed = Object.fromEntries(folders.map((f) => [f.folder, f.removed.length]));
      logger.info({ drop: key, removed }, 'drop folders cleaned (retention)');
    } catch (error) {
      report.errors.push({ drop: key, error: describeError(error) });
      logger.warn({ drop: key, err: describeError(error) }, 'drop retention failed: its archive/outbox could not be cleaned');
    }
  }
  return report;
}
