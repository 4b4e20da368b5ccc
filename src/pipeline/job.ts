import type { InboundJob } from '../config/schema.js';
import { StableFileWatcher, type ReadyFile } from '../drops/index.js';
import type { Runtime, RuntimeParts } from '../runtime/runtime.js';
import { containerKind } from '../drops/index.js';
import { encryptedMemberName } from '../drops/index.js';
import { processInboxFile } from './containers.js';
import type { FileReport, JobReport, Progress } from './types.js';

export interface InboundJobOptions {
  /** Stops the job between batches (the current file stays in the inbox and resumes on the next run). */
  signal?: AbortSignal;
  force?: boolean;
  onProgress?: (progress: Progress) => void;
  onFile?: (report: FileReport) => void;
}

/** The watcher of a job's inbox, configured from the drop's options (stability, settle time, pattern). */
export async function inboundWatcher(runtime: RuntimeParts<'drop' | 'loaded' | 'logger'>, job: InboundJob): Promise<StableFileWatcher> {
  const drop = await runtime.drop(job.drop);
  const options = runtime.loaded.config.drops[job.drop];
  return new StableFileWatcher(drop, {
    folder: 'inbox', stability: options.stability, settleMs: options.settleMs, markerSuffixes: options.markerSuffixes,
    pattern: options.pattern, pollIntervalMs: options.pollIntervalMs, checksumSidecar: options.checksumSidecar, checksumMissing: options.checksumMissing,
  }, runtime.logger.child({ job: job.name }));
}

/**
 * Whether a file is this job's: with `mappings` listed, only files one of them matches (several jobs may share a
 * drop); without, every file (one no mapping matches goes to error/).
 */
export async function belongsToJob(runtime: RuntimeParts<'mappings' | 'loaded'>, job: InboundJob, fileName: string): Promise<boolean> {
  if (!job.mappings) return true;
  const set = await runtime.mappings();
  // An encrypted or gzipped file is the job's when its name without .pgp/.gz is; a .zip when a mapping matches the zip's own name.
  const options = runtime.loaded.config.drops[job.drop];
  const name = (options?.pgp?.private_key ? encryptedMemberName(fileName) : undefined)
    ?? (containerKind(fileName) === 'gz' && options?.decompress !== false ? fileName.slice(0, -3) : fileName);
  return job.mappings.some((n) => set.get(n).matches(name));
}

/**
 * One pass over a job's inbox: every stable file, oldest first, through processFile. Fatal problems (401, an
 * unreachable drop or service) are thrown; the files already done are in the reports given to `onFile`.
 */
export async function runInboundJob(runtime: Runtime, job: InboundJob, options: InboundJobOptions = {}): Promise<JobReport> {
  const watcher = await inboundWatcher(runtime, job);
  const ready = await watcher.scanReady(options.signal);
  const mine: ReadyFile[] = [];
  for (const file of ready) if (await belongsToJob(runtime, job, file.name)) mine.push(file);
  mine.sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name));
  const report: JobReport = { job: job.name, files: [] };
  for (const file of mine) {
    if (options.signal?.aborted) break;
    const results = await processInboxFile(runtime, job, file, { signal: options.signal, force: options.force, onProgress: options.onProgress });
    for (const result of results) {
      report.files.push(result);
      options.onFile?.(result);
    }
    if (results.some((r) => r.outcome === 'interrupted')) break;
  }
  return report;
}
