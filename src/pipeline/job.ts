import type { InboundJob } from '../config/schema.js';
import { StableFileWatcher, type ReadyFile } from '../drops/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import { containerKind } from '../drops/index.js';
import { encryptedMemberName } from '../drops/index.js';
import type { FileRuntime } from './process-file.js';
import { filePlace, UNPLACED, type FilePlace } from './file-order.js';
import { FileQueue, type FileRunEnd } from './file-queue.js';
import { pickMapping } from './file-checks.js';
import type { FileOutcome, FileReport, JobReport, Progress } from './types.js';

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

/** The name a mapping matches for an inbox file: without .pgp (a drop that decrypts) or .gz (one that decompresses). */
function matchedName(runtime: RuntimeParts<'loaded'>, job: InboundJob, fileName: string): string {
  const options = runtime.loaded.config.drops[job.drop];
  return (options?.pgp?.private_key ? encryptedMemberName(fileName) : undefined)
    ?? (containerKind(fileName) === 'gz' && options?.decompress !== false ? fileName.slice(0, -3) : fileName);
}

/**
 * Whether a file is this job's: with `mappings` listed, only files one of them matches (several jobs may share a
 * drop); without, or with `x12` routes, every file (one no mapping matches goes to error/).
 */
export async function belongsToJob(runtime: RuntimeParts<'mappings' | 'loaded'>, job: InboundJob, fileName: string): Promise<boolean> {
  // An X12 file is routed by its content, which the name does not tell: a job with X12 routes takes every file.
  if (!job.mappings || job.x12) return true;
  const set = await runtime.mappings();
  // An encrypted or gzipped file is the job's when its name without .pgp/.gz is; a .zip when a mapping matches the zip's own name.
  const name = matchedName(runtime, job, fileName);
  return job.mappings.some((n) => set.get(n).matches(name));
}

/** Where a file of the job stands in the order rules (file-order.ts); a file no single mapping claims is bound by none. */
export async function placeOfFile(runtime: RuntimeParts<'mappings' | 'loaded'>, job: InboundJob, fileName: string): Promise<FilePlace> {
  const set = await runtime.mappings();
  try {
    return filePlace(pickMapping(set, job, matchedName(runtime, job, fileName)));
  } catch {
    return UNPLACED;
  }
}

/** Outcomes that leave the file to be done later: the files that must follow it wait. */
const PENDING: ReadonlySet<FileOutcome> = new Set(['interrupted', 'busy', 'lost', 'changed', 'waiting']);

export function runEndOf(outcomes: readonly FileOutcome[]): FileRunEnd {
  return outcomes.some((o) => PENDING.has(o)) ? 'pending' : 'concluded';
}

/**
 * The flow of a file (containers, processFile, the sender, the client's helpers, the contract's schemas), loaded when
 * a first file is processed: `batch` over an empty inbox starts without it (docs/performance.md, start-up).
 */
const fileFlow = () => import('./containers.js');

/**
 * One pass over a job's inbox: every stable file, oldest first, `files_in_flight` at once within the order rules
 * (file-queue.ts), through processFile. Fatal problems (401, an unreachable drop or service) are thrown once the
 * files in flight have finished; the files already done are in the reports given to `onFile`.
 */
export async function runInboundJob(runtime: FileRuntime, job: InboundJob, options: InboundJobOptions = {}): Promise<JobReport> {
  const watcher = await inboundWatcher(runtime, job);
  const ready = await watcher.scanReady(options.signal);
  const mine: ReadyFile[] = [];
  for (const file of ready) if (await belongsToJob(runtime, job, file.name)) mine.push(file);
  mine.sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name));
  // Reported in the inbox's order (oldest first), whatever order the files in flight finish in.
  const reports = new Map<ReadyFile, FileReport[]>();
  const queue = new FileQueue<ReadyFile>({
    limit: job.files_in_flight,
    signal: options.signal,
    run: async (file) => {
      const { processInboxFile } = await fileFlow();
      const results = await processInboxFile(runtime, job, file, { signal: options.signal, force: options.force, onProgress: options.onProgress });
      reports.set(file, results);
      for (const result of results) options.onFile?.(result);
      options.onProgress?.({ file: file.name, rows: 0, bytes: 0, size: 0, finished: true });
      return runEndOf(results.map((r) => r.outcome));
    },
    onBlocked: (name) => runtime.logger.info({ job: job.name, file: name }, 'file not finished: the files that must follow it wait for the next run'),
  });
  const places: FilePlace[] = [];
  for (const file of mine) places.push(await placeOfFile(runtime, job, file.name));
  // Added together, in one turn: the queue weighs the files against each other before starting any.
  mine.forEach((file, i) => queue.add(file, file.name, places[i]));
  await queue.drained();
  return { job: job.name, files: mine.flatMap((file) => reports.get(file) ?? []) };
}
