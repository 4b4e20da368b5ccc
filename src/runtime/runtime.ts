import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ClientEvent, WisClient } from '../client/index.js';
import type { LoadedConfig } from '../config/load.js';
import { openDrop, processDropOptions, type Drop } from '../drops/index.js';
import { JournalTally, openJournal, type FileStatus, type Journal, type JournalOptions } from '../journal/index.js';
import { silentLogger, type Logger } from '../log.js';
import type { Mapping, MappingSet } from '../mapping/index.js';
import { Limiter } from '../util/limiter.js';

/**
 * The live parts a configuration describes, built once and shared by every job of a process:
 * one journal, one client per service, one drop (connection) per drop, the mapping set.
 * Jobs (inbound, export) receive a Runtime and never construct these themselves.
 */
export interface Runtime {
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  /** Aborted on shutdown: every request and wait in flight ends promptly. */
  readonly signal: AbortSignal;
  journal(): Promise<Journal>;
  /** What this process's connections to the journal spent committing and syncing (its file threads' once they end). */
  readonly journalTally: JournalTally;
  /** Every definition of the mappings folder, checked together (names unique). */
  mappings(): Promise<MappingSet>;
  /** One mapping by name: from the set when it is loaded, else from its own file when there is one (loadNamedMapping). */
  mapping(name: string): Promise<Mapping>;
  client(service: string): Promise<WisClient>;
  /**
   * The service's requests recorded as sent and not yet decided, every file and job of this process together: what
   * a crash would leave in doubt. `services.<name>.max_requests_in_flight` slots; a file records a request only with
   * one (src/pipeline/undecided.ts).
   */
  undecided(service: string): Limiter;
  /** Mapping threads of big files at once in this process (`mapping_threads.max`, default MAPPING_THREADS). */
  readonly mappingThreads: Limiter;
  drop(name: string): Promise<Drop>;
  /** Told when an operator's action (re-drive, resolution) brought a finished file to a new state. */
  readonly onFileConcluded?: (event: FileConcluded) => void;
  /** Under `wisbridge run`: this instance's leases (absent for one-shot commands, which take none). */
  readonly leases?: LeaseGuard;
  close(): Promise<void>;
}

/**
 * Mapping threads at once (src/pipeline/batches-thread.ts): each takes memory of its own and a heap of up to 64 MB
 * (128 MB for a mapping that holds its documents), so `files_in_flight` big files at once would take as many; on two
 * cores more than two would not map faster. A big file waits for one (docs/performance.md, "Settings chosen by
 * measurement").
 */
export const MAPPING_THREADS = 2;

/**
 * What a module takes of the runtime: the parts it uses (`K`) and the journal as the role it calls (`J`, from
 * src/journal/interfaces.ts), not the whole runtime and the whole journal (every role of JournalContract). The runtime satisfies every such type,
 * so a caller passes it as it is; the compiler keeps the module to what it declared.
 */
export type RuntimeParts<K extends Exclude<keyof Runtime, 'journal'> = never, J = never> =
  Pick<Runtime, K> & ([J] extends [never] ? unknown : { journal(): Promise<J> });

/**
 * What the pipeline asks of the instance's leases (src/service/instance.ts keeps them alive by heartbeats): an
 * instance sends for a file only while its heartbeat is fresh and the file is still its own.
 */
export interface LeaseGuard {
  /** Resolves once this instance may claim and send (its last heartbeat is fresh); rejects when `signal` aborts first. */
  live(signal?: AbortSignal): Promise<void>;
  /** The lease of a file this instance just claimed; `release()` it once the file is done with. */
  hold(fileId: number): HeldLease;
}

/** The lease of one claimed file, as its flow sees it. */
export interface HeldLease {
  /** Aborts when another instance took the file over (reason: LEASE_LOST), or when the process stops hard. */
  readonly signal: AbortSignal;
  /** Whether another instance took the file over. */
  readonly lost: boolean;
  /** Resolves when a request of the file may go out (heartbeat fresh); throws LEASE_LOST once the file is lost. */
  ready(): Promise<void>;
  /**
   * Right before an attempt's bytes go out (each retry too): throws LEASE_LOST when the file is lost, or when the last
   * heartbeat answered was sent too long ago for the lease to be sure (it may have passed to another instance).
   */
  check(): void;
  /** The journal refused a write for the file (LEASE_LOST): the lease is gone, whatever the last heartbeat said. */
  lose(): void;
  release(): void;
}

/** What a file came to after an operator's action, for whoever listens (metrics, alerts, the console). */
export interface FileConcluded {
  fileId: number;
  name: string;
  /** The job whose drop the file came through. */
  job: string;
  via: 'redrive' | 'resolve';
  status: FileStatus;
  resultFile: string;
  /** Where an operator finds it: `outbox/NAME`, or the folder `wisbridge process` wrote it to. */
  resultAt: string;
}

export interface RuntimeOptions {
  logger?: Logger;
  signal?: AbortSignal;
  /** The mappings folder already loaded and checked (run and batch check it before they start): not read again. */
  mappings?: MappingSet;
  /** Client events (one per HTTP attempt) with the service name, for metrics. */
  onClientEvent?: (service: string, event: ClientEvent) => void;
  /** See Runtime.onFileConcluded. */
  onFileConcluded?: (event: FileConcluded) => void;
  /** How the journal is opened (`wisbridge run`: its instance and lease, for lease mode). */
  journalOptions?: JournalOptions;
  /** See Runtime.leases. */
  leases?: LeaseGuard;
}

/** Configurations whose deprecation warnings were logged: once per loaded file, however many runtimes it feeds. */
const warned = new WeakSet<LoadedConfig>();

export function createRuntime(loaded: LoadedConfig, options: RuntimeOptions = {}): Runtime {
  const logger = options.logger ?? silentLogger;
  if (!warned.has(loaded)) {
    warned.add(loaded);
    for (const w of loaded.warnings) logger.warn({ config: `${w.file}:${w.line}:${w.col}` }, w.message);
  }
  const signal = options.signal ?? new AbortController().signal;
  const clients = new Map<string, Promise<WisClient>>();
  const undecided = new Map<string, Limiter>();
  const drops = new Map<string, Promise<Drop>>();
  const single = new Map<string, Promise<Mapping>>();
  let journal: Promise<Journal> | undefined;
  const journalTally = options.journalOptions?.tally ?? new JournalTally();

  // A mapping file read twice (on its own, then with its folder) is warned about once.
  const mappingWarnings = new Set<string>();
  const warnOnce = (mapping: Mapping): Mapping => {
    for (const w of mapping.warnings ?? []) {
      const at = `${w.file}:${w.line}:${w.col}`;
      if (mappingWarnings.has(at)) continue;
      mappingWarnings.add(at);
      logger.warn({ mapping: at }, w.message);
    }
    return mapping;
  };
  options.mappings?.mappings.forEach(warnOnce);
  let mappings: Promise<MappingSet> | undefined = options.mappings && Promise.resolve(options.mappings);
  // The mapping layer is loaded when a mapping is first asked for: a command given its checked set (run, batch)
  // starts without its compile steps (src/mapping/folder.ts), which a first file's flow loads.
  const mappingLayer = () => import('../mapping/index.js');
  const loadSet = () => (mappings ??= mappingLayer().then(({ loadMappings }) => loadMappings(loaded.mappingsDir)).then((set) => (set.mappings.forEach(warnOnce), set)));

  const once = <T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> => {
    let found = cache.get(key);
    if (!found) {
      found = make();
      // A failed construction (bad secret, say) is not cached: the next call tries again.
      found.catch(() => cache.delete(key));
      cache.set(key, found);
    }
    return found;
  };

  return {
    loaded,
    logger,
    signal,
    journalTally,
    journal: () =>
      (journal ??= (async () => {
        if (loaded.journalFile !== undefined) await mkdir(dirname(loaded.journalFile), { recursive: true });
        return openJournal(loaded.journal, { ...options.journalOptions, tally: journalTally });
      })()),
    mappings: loadSet,
    mapping: (name) =>
      mappings
        ? mappings.then((set) => set.get(name))
        : once(single, name, async () => warnOnce((await (await mappingLayer()).loadNamedMapping(loaded.mappingsDir, name)) ?? (await loadSet()).get(name))),
    client: (name) =>
      once(clients, name, async () => {
        const service = loaded.service(name);
        // Loaded with the first client: a command that sends nothing (an empty pass) starts without it.
        const { createClient } = await import('../client/index.js');
        return createClient({
          baseUrl: service.url,
          token: await loaded.serviceToken(name),
          batchSize: service.batch_size,
          // Connections are raised to the cap in the transport, so a file's window of requests_in_flight (default 8)
          // never queues behind `concurrency`'s sockets (default 5: a window of 8 reached 5).
          connections: service.concurrency,
          maxRequestsInFlight: service.max_requests_in_flight,
          requestTimeoutMs: service.request_timeout_ms,
          maxAttempts: service.max_attempts,
          signal,
          logger: logger.child({ service: name }),
          onEvent: options.onClientEvent ? (event) => options.onClientEvent!(name, event) : undefined,
        });
      }),
    undecided: (name) => {
      let budget = undecided.get(name);
      if (!budget) undecided.set(name, (budget = new Limiter(loaded.service(name).max_requests_in_flight)));
      return budget;
    },
    mappingThreads: new Limiter(loaded.config.mapping_threads?.max ?? MAPPING_THREADS),
    drop: (name) => once(drops, name, async () => {
      const child = logger.child({ drop: name });
      // A file `wisbridge process` read has no configured drop: its recorded name says its folders (re-drive, resolve).
      const local = Object.hasOwn(loaded.config.drops, name) ? undefined : processDropOptions(name);
      if (local) return (await import('../drops/create.js')).createDrop(local, child);
      return openDrop(await loaded.dropOptions(name), child);
    }),
    onFileConcluded: options.onFileConcluded,
    leases: options.leases,
    async close() {
      const settled = await Promise.allSettled([...drops.values()]);
      await Promise.allSettled(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])));
      const clientList = await Promise.allSettled([...clients.values()]);
      await Promise.allSettled(clientList.flatMap((c) => (c.status === 'fulfilled' ? [c.value.close()] : [])));
      if (journal) await (await journal.catch(() => undefined))?.close();
    },
  };
}
