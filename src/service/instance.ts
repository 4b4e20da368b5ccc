import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { version } from '../util/version.js';
import { describeError, WisbridgeError } from '../errors.js';
import type { InstanceInfo, Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { HeldLease, LeaseGuard } from '../runtime/runtime.js';

/** This process as an instance of the bridge: `host-pid-random`, so that a restarted process is a new instance. */
export function newInstance(): InstanceInfo {
  const host = hostname();
  return { id: `${host}-${process.pid}-${randomBytes(3).toString('hex')}`, host, pid: process.pid, version: version() };
}

export interface LeaseTiming {
  leaseMs: number;
  heartbeatMs: number;
}

/** What /healthz says of the journal: reachable, or since when it is not (and why). */
export interface JournalHealth {
  reachable: boolean;
  lastHeartbeat: string | null;
  since?: string;
  error?: string;
}

type LeaseJournal = Pick<Journal, 'instance' | 'registerInstance' | 'heartbeat' | 'retireInstance'>;

/**
 * The instance's membership of the journal under `wisbridge run`: registers it, renews its leases by a heartbeat
 * every `heartbeatMs`, and gives them up on a graceful stop. The pipeline asks it before it claims or sends
 * (LeaseGuard), and again before every attempt of a request (retries too): an instance whose last good heartbeat was
 * *sent* more than `leaseMs - heartbeatMs` ago may already have lost its files to another instance (the journal
 * unreachable, the process paused, an answer that took its time), so it sends nothing more: a new request waits until
 * a heartbeat succeeds again, a call retrying stops. A heartbeat that reports a file lost aborts that file's flow at
 * once, and one that reports a scheduled tick lost aborts that tick's run. Once the instance retired, or stopped
 * without retiring, nothing is fresh any more. Times are the process's monotonic clock: a lease is real time,
 * whatever clock drives the schedules.
 */
/** Told of every lease this instance lost while it worked under it (the metrics count them). */
export interface LostLeases {
  file(fileId: number): void;
  /** `schedule`: the tick's schedule key (`job:NAME`, `retention`, `expect:JOB#i`). */
  tick(schedule: string): void;
}

export class InstanceLeases implements LeaseGuard {
  readonly #journal: () => Promise<LeaseJournal>;
  readonly #timing: LeaseTiming;
  readonly #logger: Logger;
  /** The process's hard stop: waits end and leases abort with it. */
  readonly #hardStop: AbortSignal;
  readonly #onLost: LostLeases;
  readonly #held = new Map<number, { controller: AbortController; holders: number }>();
  /** The ticks this instance runs now (tickKey) → what aborts their run once another instance took one over. */
  readonly #ticks = new Map<string, AbortController>();
  readonly #waiters = new Set<() => void>();
  /** Off until start() registered the instance (and for a journal without an instance): nothing is waited for. */
  #on = false;
  #lastGood = 0;
  #lastGoodIso: string | null = null;
  #failure: { since: string; error: string } | undefined;
  #holding = false;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #stopped = false;
  /** Retired, or stopped without retiring (halt): this instance sends nothing more, whatever its last heartbeat. */
  #done = false;

  constructor(journal: () => Promise<LeaseJournal>, timing: LeaseTiming, logger: Logger, hardStop: AbortSignal, onLost: LostLeases = { file: () => undefined, tick: () => undefined }) {
    this.#journal = journal;
    this.#timing = timing;
    this.#logger = logger;
    this.#hardStop = hardStop;
    this.#onLost = onLost;
  }

  /** Registers the instance (a SQLite journal refuses a second live one: that error is thrown) and starts the heartbeat. */
  async start(): Promise<void> {
    const journal = await this.#journal();
    if (journal.instance === null) return;
    const sent = performance.now();
    await journal.registerInstance();
    this.#good(sent);
    this.#on = true;
    this.#logger.info({ instance: journal.instance.id, leaseMs: this.#timing.leaseMs, heartbeatMs: this.#timing.heartbeatMs }, 'instance registered');
    this.#schedule();
  }

  /** Whether the last good heartbeat was sent recently enough to claim and send. */
  get fresh(): boolean {
    if (this.#done) return false;
    return !this.#on || performance.now() - this.#lastGood < this.#timing.leaseMs - this.#timing.heartbeatMs;
  }

  health(): JournalHealth {
    const reachable = this.#failure === undefined && this.fresh;
    return {
      reachable, lastHeartbeat: this.#lastGoodIso,
      ...(reachable ? {} : { since: this.#failure?.since ?? this.#lastGoodIso ?? undefined, error: this.#failure?.error ?? 'no heartbeat answered lately' }),
    };
  }

  async live(signal?: AbortSignal): Promise<void> {
    while (!this.fresh) {
      this.#announceHolding();
      await this.#nextGood(signal);
    }
  }

  hold(fileId: number): HeldLease {
    let entry = this.#held.get(fileId);
    if (!entry || entry.controller.signal.aborted) {
      entry = { controller: new AbortController(), holders: 0 };
      this.#held.set(fileId, entry);
    }
    entry.holders += 1;
    const held = entry;
    const signal = AbortSignal.any([held.controller.signal, this.#hardStop]);
    const lost = () => held.controller.signal.aborted;
    let released = false;
    return {
      signal,
      get lost() {
        return lost();
      },
      ready: async () => {
        for (;;) {
          this.#refuseDone(fileId);
          if (lost()) throw held.controller.signal.reason;
          if (this.fresh) return;
          this.#announceHolding();
          await this.#nextGood(signal);
        }
      },
      check: () => {
        if (lost()) throw held.controller.signal.reason;
        this.#refuseDone(fileId);
        if (this.fresh) return;
        this.#announceHolding();
        const sinceMs = Math.round(performance.now() - this.#lastGood);
        this.#logger.warn({ fileId, lastHeartbeat: this.#lastGoodIso }, 'a request of the file is not sent (again): its lease may have passed to another instance');
        throw new WisbridgeError('LEASE_LOST', `file ${fileId}: no heartbeat answered since one sent ${sinceMs} ms ago: `
          + 'its lease may have passed to another instance; nothing more is sent for it from here', { details: { fileId } });
      },
      lose: () => this.lose(fileId),
      release: () => {
        if (released) return;
        released = true;
        held.holders -= 1;
        if (held.holders === 0 && this.#held.get(fileId) === held) this.#held.delete(fileId);
      },
    };
  }

  /**
   * A scheduled tick this instance claimed, while its run runs: `signal` aborts (LEASE_LOST) once a heartbeat reports
   * the tick taken over by another instance, or when the process stops hard. `release()` once the run is over.
   */
  holdTick(job: string, tick: string): { signal: AbortSignal; readonly lost: boolean; release(): void } {
    const key = `${job}\n${tick}`;
    const controller = new AbortController();
    this.#ticks.set(key, controller);
    return {
      signal: AbortSignal.any([controller.signal, this.#hardStop]),
      get lost() {
        return controller.signal.aborted;
      },
      release: () => {
        if (this.#ticks.get(key) === controller) this.#ticks.delete(key);
      },
    };
  }

  #loseTick(job: string, tick: string): void {
    const controller = this.#ticks.get(`${job}\n${tick}`);
    if (!controller || controller.signal.aborted) return;
    this.#logger.warn({ event: 'tick.lease-lost', schedule: job, tick }, 'scheduled tick taken over by another instance (its lease expired here): its run stops on this instance');
    this.#onLost.tick(job);
    controller.abort(new WisbridgeError('LEASE_LOST', `job ${job}, tick ${tick}: another instance took it over (its lease expired here); its run stops on this instance`));
  }

  /** A write of the file was refused (LEASE_LOST): its lease is gone whatever the heartbeat said. */
  lose(fileId: number): void {
    const entry = this.#held.get(fileId);
    if (!entry || entry.controller.signal.aborted) return;
    entry.controller.abort(new WisbridgeError('LEASE_LOST', `file ${fileId}: another instance took it over (its lease expired here); it stops on this instance`));
    this.#onLost.file(fileId);
  }

  /** One heartbeat now (tests; the timer calls it too). */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  /**
   * Stops the heartbeat and gives the leases up (a graceful stop, every run ended: other instances take the files over
   * at once). Nothing is sent from here on.
   */
  async retire(): Promise<void> {
    await this.halt();
    if (!this.#on) return;
    this.#on = false;
    try {
      await (await this.#journal()).retireInstance();
    } catch (error) {
      this.#logger.warn({ err: describeError(error) }, 'could not retire the instance: its leases expire by themselves');
    }
    this.#wake();
  }

  /**
   * Stops the heartbeat without retiring (a stop whose runs did not all end: their requests are undecided, so their
   * leases must run out by themselves rather than be handed over at once). Nothing is sent from here on.
   */
  async halt(): Promise<void> {
    this.#stopped = true;
    this.#done = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#beating?.catch(() => undefined);
    this.#wake();
  }

  #refuseDone(fileId: number): void {
    if (this.#done) throw new WisbridgeError('LEASE_LOST', `file ${fileId}: this instance is stopping; nothing more is sent for it from here`, { details: { fileId } });
  }

  async #beat(): Promise<void> {
    if (!this.#on || this.#done) return;
    try {
      const journal = await this.#journal();
      // The lease the server renews is good from when the heartbeat left, not from when its answer came.
      const sent = performance.now();
      const { lost, lostTicks = [] } = await journal.heartbeat(this.#timing.leaseMs);
      const was = this.#failure;
      this.#good(sent);
      if (was !== undefined || this.#holding) this.#logger.info({ event: 'journal.answers-again', unreachableSince: was?.since }, 'the journal answers again: claiming and sending again');
      this.#holding = false;
      for (const fileId of lost) this.lose(fileId);
      for (const { job, tick } of lostTicks) this.#loseTick(job, tick);
      this.#wake();
    } catch (error) {
      if (this.#failure === undefined) {
        this.#failure = { since: new Date().toISOString(), error: describeError(error) };
        this.#logger.warn({ err: this.#failure.error }, 'heartbeat failed: the journal cannot be reached');
      } else this.#failure.error = describeError(error);
      if (!this.fresh) this.#announceHolding();
    }
  }

  #good(sent: number): void {
    this.#lastGood = sent;
    this.#lastGoodIso = new Date(Date.now() - (performance.now() - sent)).toISOString();
    this.#failure = undefined;
  }

  #announceHolding(): void {
    if (this.#holding) return;
    this.#holding = true;
    this.#logger.warn({ lastHeartbeat: this.#lastGoodIso, leaseMs: this.#timing.leaseMs },
      'no heartbeat answered for too long: this instance stops claiming and sending until the journal answers (its leases may be taken over)');
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.beat().finally(() => this.#schedule());
    }, this.#timing.heartbeatMs);
    // The heartbeat alone does not keep the process alive; while work waits for the journal to answer again, it is
    // what will wake it (a one-shot command with nothing else pending would end with its work unsettled).
    if (this.#waiters.size === 0) this.#timer.unref();
  }

  #nextGood(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', aborted);
        this.#hardStop.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        this.#waiters.delete(done);
        signal?.removeEventListener('abort', aborted);
        this.#hardStop.removeEventListener('abort', aborted);
        reject(signal?.aborted ? signal.reason : this.#hardStop.reason);
      };
      if (signal?.aborted || this.#hardStop.aborted) return aborted();
      this.#waiters.add(done);
      this.#timer?.ref();
      signal?.addEventListener('abort', aborted, { once: true });
      this.#hardStop.addEventListener('abort', aborted, { once: true });
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
