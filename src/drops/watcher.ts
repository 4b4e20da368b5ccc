import { silentLogger, type Logger } from '../log.js';
import { describeError, WisbridgeError } from '../errors.js';
import { isSidecarName, SIDECAR_SUFFIXES } from './checksum.js';
import { isTemporaryName, type Drop, type DropEntry, type FolderRole } from './drop.js';

/** A file that finished arriving; `marker` is the marker file's name in marker mode. */
export interface ReadyFile extends DropEntry {
  marker?: string;
  /** Size and mtime of its checksum file when there is one: a new checksum file makes the file ready again. */
  sidecar?: string;
}

/** Same names and defaults as the drop options (options.ts), so parsed drop options can be passed as they are. */
export interface WatcherOptions {
  folder?: FolderRole;
  stability?: 'settle' | 'marker';
  settleMs?: number;
  markerSuffixes?: string[];
  pattern?: string | RegExp;
  pollIntervalMs?: number;
  /** Checksum files (`NAME.sha256`, `NAME.md5`) are never candidates unless `off`; with `require` + `wait`, a file waits for its own. */
  checksumSidecar?: 'off' | 'verify' | 'require';
  checksumMissing?: 'wait' | 'error';
  /** watch(): told after each listing, with the error when it failed (drop health). */
  onListing?: (error?: unknown) => void;
}

const EVENT_DEBOUNCE_MS = 100;

interface Observation {
  size: number;
  mtimeMs: number;
  since: number;
}

/**
 * Stable-file detection over a drop's inbox. `scanReady()` for batch runs, `watch(signal)` for continuous
 * runs (polling, plus file events where the drop offers them). Temporary names, dot-files and marker files
 * are never emitted; an unchanged file is emitted once for as long as it stays in the folder.
 */
export class StableFileWatcher {
  private readonly folder: FolderRole;
  private readonly mode: 'settle' | 'marker';
  private readonly settleMs: number;
  private readonly suffixes: string[];
  private readonly pattern: RegExp | undefined;
  private readonly pollIntervalMs: number;
  private readonly onListing: (error?: unknown) => void;
  private readonly sidecars: boolean;
  private readonly waitForSidecar: boolean;

  constructor(private readonly drop: Drop, options: WatcherOptions = {}, private readonly logger: Logger = silentLogger) {
    this.folder = options.folder ?? 'inbox';
    this.mode = options.stability ?? 'settle';
    this.settleMs = options.settleMs ?? 2000;
    this.suffixes = (options.markerSuffixes ?? ['.ok', '.done']).map((s) => s.toLowerCase());
    this.pattern = typeof options.pattern === 'string' ? compilePattern(options.pattern) : options.pattern;
    this.pollIntervalMs = options.pollIntervalMs ?? 5000;
    this.onListing = options.onListing ?? (() => undefined);
    this.sidecars = (options.checksumSidecar ?? 'verify') !== 'off';
    this.waitForSidecar = options.checksumSidecar === 'require' && (options.checksumMissing ?? 'wait') === 'wait';
  }

  /** Whether a name is a candidate at all (not temporary, not a marker, matches the pattern). */
  isCandidate(name: string): boolean {
    if (isTemporaryName(name)) return false;
    const lower = name.toLowerCase();
    if (this.suffixes.some((suffix) => lower.endsWith(suffix))) return false;
    if (this.sidecars && isSidecarName(name)) return false;
    return this.pattern === undefined || this.pattern.test(name);
  }

  /** One-shot: the files ready now. In settle mode this looks twice, `settleMs` apart. Errors propagate. */
  async scanReady(signal?: AbortSignal): Promise<ReadyFile[]> {
    const observed = new Map<string, Observation>();
    const first = await this.evaluate(observed, Date.now());
    if (this.mode === 'marker' || this.settleMs === 0 || observed.size === 0) return first.ready;
    await sleep(this.settleMs, signal);
    return (await this.evaluate(observed, Date.now())).ready;
  }

  /** Continuous: yields each ready file once, until the signal aborts. Listing errors are logged and retried. */
  async *watch(signal?: AbortSignal): AsyncGenerator<ReadyFile> {
    for await (const files of this.watchListings(signal)) {
      for (const file of files) {
        if (signal?.aborted) return;
        yield file;
      }
    }
  }

  /**
   * Continuous, a listing at a time: the files that became ready in one look at the folder, together (a caller that
   * orders files weighs them together), each file once while it stays. Until the signal aborts.
   */
  async *watchListings(signal?: AbortSignal): AsyncGenerator<ReadyFile[]> {
    const observed = new Map<string, Observation>();
    const emitted = new Map<string, string>();
    const waker = new Waker();
    let debounce: NodeJS.Timeout | undefined;
    const stopEvents = this.drop.watchFolder?.(this.folder, () => {
      debounce ??= setTimeout(() => { debounce = undefined; waker.wake(); }, EVENT_DEBOUNCE_MS);
    });
    try {
      while (!signal?.aborted) {
        let nextCheck = this.pollIntervalMs;
        let fresh: ReadyFile[] = [];
        try {
          const { ready, present, pendingIn } = await this.evaluate(observed, Date.now());
          this.onListing();
          for (const name of [...emitted.keys()]) if (!present.has(name)) emitted.delete(name);
          for (const file of ready) {
            const signature = `${file.size}:${file.mtimeMs}:${file.sidecar ?? ''}`;
            if (emitted.get(file.name) === signature) continue;
            emitted.set(file.name, signature);
            fresh.push(file);
          }
          if (pendingIn !== undefined) nextCheck = Math.min(nextCheck, Math.max(pendingIn, 10));
        } catch (error) {
          fresh = [];
          this.onListing(error);
          this.logger.warn({ drop: this.drop.name, folder: this.folder, err: describeError(error) }, 'listing the drop failed; retrying at the next poll');
        }
        if (fresh.length > 0) {
          if (signal?.aborted) return;
          yield fresh;
          if (signal?.aborted) return;
        }
        await waker.wait(nextCheck, signal);
      }
    } finally {
      if (debounce) clearTimeout(debounce);
      await stopEvents?.();
    }
  }

  /** Callback form of watch(): handles one file at a time; resolves when the signal aborts. */
  async run(onReady: (file: ReadyFile) => Promise<void> | void, signal?: AbortSignal): Promise<void> {
    for await (const file of this.watch(signal)) await onReady(file);
  }

  private async evaluate(observed: Map<string, Observation>, now: number) {
    const entries = await this.drop.list(this.folder);
    const names = new Set(entries.map((e) => e.name.toLowerCase()));
    const byName = this.sidecars ? new Map(entries.map((e) => [e.name, e])) : undefined;
    const present = new Set<string>();
    const ready: ReadyFile[] = [];
    let pendingIn: number | undefined;
    for (let entry of entries as ReadyFile[]) {
      if (!this.isCandidate(entry.name)) continue;
      present.add(entry.name);
      if (byName) {
        const sidecar = SIDECAR_SUFFIXES.map(([suffix]) => byName.get(entry.name + suffix)).find((e) => e !== undefined);
        if (!sidecar && this.waitForSidecar) continue;
        if (sidecar) entry = { ...entry, sidecar: `${sidecar.size}:${sidecar.mtimeMs}` } as ReadyFile;
      }
      if (this.mode === 'marker') {
        const suffix = this.suffixes.find((s) => names.has(`${entry.name.toLowerCase()}${s}`));
        if (suffix === undefined) continue;
        const marker = entries.find((e) => e.name.toLowerCase() === `${entry.name.toLowerCase()}${suffix}`)!.name;
        ready.push({ ...entry, marker });
        continue;
      }
      const before = observed.get(entry.name);
      if (!before || before.size !== entry.size || before.mtimeMs !== entry.mtimeMs) {
        observed.set(entry.name, { size: entry.size, mtimeMs: entry.mtimeMs, since: now });
        if (this.settleMs === 0) ready.push(entry);
        else pendingIn = Math.min(pendingIn ?? Infinity, this.settleMs);
        continue;
      }
      const waited = now - before.since;
      if (waited >= this.settleMs) ready.push(entry);
      else pendingIn = Math.min(pendingIn ?? Infinity, this.settleMs - waited);
    }
    for (const name of [...observed.keys()]) if (!present.has(name)) observed.delete(name);
    return { ready, present, pendingIn };
  }
}

function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'i');
  } catch {
    throw new WisbridgeError('CONFIG_INVALID', `drop option pattern: ${JSON.stringify(pattern)} is not a valid regular expression`);
  }
}

class Waker {
  private resolve: (() => void) | undefined;
  private pending = false;

  wake(): void {
    if (this.resolve) this.resolve();
    else this.pending = true;
  }

  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.pending || signal?.aborted) {
      this.pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.resolve = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
