import { silentLogger, type Logger } from '../log.js';
import type { Progress } from '../pipeline/index.js';

export interface FileProgress {
  job: string;
  file: string;
  /** Input lines read so far. */
  rows: number;
  bytes: number;
  size: number;
  /** Rows of the whole file: its lines less the header (from the checksum pass), else estimated from the bytes read. */
  estimatedTotal: number | null;
  /** Rows done of the total, else bytes read of the size (0-100). */
  percent: number;
  /** Rows per second since the file started. */
  rate: number;
  startedAt: string;
  updatedAt: string;
}

interface Entry {
  job: string;
  file: string;
  rows: number;
  bytes: number;
  size: number;
  lines: number | undefined;
  started: number;
  updated: number;
  logged: number;
}

/** A long file under `wisbridge run` logs its progress this often. */
const LOG_EVERY_MS = 30_000;

/**
 * Files in progress, per job and file (a job works on up to `files_in_flight` files at once). The pipeline's onProgress calls `update`
 * for every row, so it only stores numbers (and logs a line every 30 s); the console reads snapshots.
 */
export class ProgressRegistry {
  /** Job → file → entry: nested, so the per-row update builds no key. */
  private readonly jobs = new Map<string, Map<string, Entry>>();

  constructor(private readonly now: () => number = Date.now, private readonly logger: Logger = silentLogger) {}

  /** The onProgress callback of one job's runs. */
  reporter(job: string): (progress: Progress) => void {
    return (p) => this.update(job, p);
  }

  update(job: string, p: Progress): void {
    let files = this.jobs.get(job);
    if (p.finished) {
      files?.delete(p.file);
      return;
    }
    if (!files) this.jobs.set(job, files = new Map());
    let entry = files.get(p.file);
    if (!entry) {
      const now = this.now();
      entry = { job, file: p.file, rows: 0, bytes: 0, size: p.size, lines: p.lines, started: now, updated: now, logged: now };
      files.set(p.file, entry);
    }
    entry.rows = p.rows;
    entry.bytes = p.bytes;
    entry.size = p.size;
    entry.updated = this.now();
    if (entry.updated - entry.logged >= LOG_EVERY_MS) {
      entry.logged = entry.updated;
      const seconds = (entry.updated - entry.started) / 1000;
      this.logger.info({ job, file: entry.file, rows: entry.rows, bytes: entry.bytes, size: entry.size, rowsPerSecond: Math.round(entry.rows / seconds) }, 'file in progress');
    }
  }

  /** A run of the job is over: its file (`file`), or every file of the job, is no longer in progress. */
  end(job: string, file?: string): void {
    if (file === undefined) this.jobs.delete(job);
    else this.jobs.get(job)?.delete(file);
  }

  snapshot(): FileProgress[] {
    const now = this.now();
    return [...this.jobs.values()].flatMap((files) => [...files.values()]).map((e) => {
      const seconds = Math.max((now - e.started) / 1000, 0.001);
      const total = e.lines !== undefined ? Math.max(e.rows, e.lines - 1)
        : e.bytes > 0 && e.size > 0 ? Math.max(e.rows, Math.round((e.rows * e.size) / e.bytes)) : null;
      const percent = total ? (e.rows / total) * 100 : e.size > 0 ? (e.bytes / e.size) * 100 : 0;
      return {
        job: e.job, file: e.file, rows: e.rows, bytes: e.bytes, size: e.size, estimatedTotal: total, percent: Math.min(100, Math.floor(percent)),
        rate: Math.round(e.rows / seconds),
        startedAt: new Date(e.started).toISOString(),
        updatedAt: new Date(e.updated).toISOString(),
      };
    });
  }
}
