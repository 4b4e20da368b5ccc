import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, isWisbridgeError } from '../errors.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { pause, type Clock } from './clock.js';
import type { InstanceLeases } from './instance.js';
import type { ServiceMetrics } from './metrics.js';

/** A tick's finish that failed is tried again this many times a lease. */
const FINISH_TRIES = 10;

type TickJournal = Pick<Journal, 'instance' | 'claimTick' | 'finishTick' | 'releaseTick'>;

/**
 * Scheduled work runs once per tick across the instances sharing the journal (exports, scheduled inbound passes,
 * retention, expected-file checks): every instance's scheduler fires, the first to claim (schedule, tick) in the
 * journal runs it, with a fencing token, and the others log it at debug and count it. A row per tick rather than a
 * PostgreSQL session advisory lock: a lock held by a session does not survive a connection pooler in transaction
 * mode (PgBouncer), nor a reconnection, while the row's lease does (docs/operations.md, "Running several instances").
 *
 * The claim is a lease the owner's heartbeat renews: when its owner dies mid-tick, the tick is not done and its lease
 * runs out, so the instances that lost the claim look again every lease and the first to find it expired takes it
 * over (a new token) and runs it — the run resumes from the journal as after a crash. A run stopped by shutdown
 * leaves its tick unfinished, given up for the next claim. A tick is fenced like a file: its run gets a signal that
 * aborts once a heartbeat reports the tick taken over (its owner paused past its lease), and a tick lost is never
 * marked done by the run it stopped. A journal without an instance (a test's own runtime) runs every tick.
 */
export class SharedTicks {
  constructor(
    private readonly journal: () => Promise<TickJournal>,
    private readonly leases: Pick<InstanceLeases, 'holdTick' | 'fresh'>,
    private readonly leaseMs: number,
    private readonly metrics: ServiceMetrics,
    private readonly logger: Logger,
    private readonly clock: Clock,
    /** The soft stop: no tick is claimed or waited for after it. */
    private readonly stop: AbortSignal,
  ) {}

  /**
   * Runs `run` for the tick of `schedule` due at `at`, unless another instance claimed that tick first. `run`
   * resolves false when it was stopped before its end: the tick stays unfinished (another instance, or this one's
   * catch-up, may run it again). Its `signal` aborts when the tick is taken over by another instance meanwhile.
   */
  async once(schedule: string, at: number, run: (signal: AbortSignal) => Promise<boolean>): Promise<void> {
    const journal = await this.journal();
    if (journal.instance === null) {
      await run(new AbortController().signal);
      return;
    }
    const tick = new Date(at).toISOString();
    let counted = false;
    for (;;) {
      if (this.stop.aborted) return;
      const claim = await journal.claimTick(schedule, tick, this.leaseMs);
      if (claim.won) {
        await this.#run(journal, schedule, tick, claim.token, run);
        return;
      }
      if (!counted) {
        counted = true;
        this.metrics.ticksElsewhere.inc({ schedule });
        this.logger.debug({ schedule, tick, owner: claim.owner, done: claim.done }, 'scheduled tick claimed by another instance: it runs there');
      }
      if (claim.done) return;
      await pause(this.clock, this.leaseMs, this.stop);
    }
  }

  async #run(journal: TickJournal, schedule: string, tick: string, token: number, run: (signal: AbortSignal) => Promise<boolean>): Promise<void> {
    const held = this.leases.holdTick(schedule, tick);
    // A run that failed is over too; only one stopped by shutdown, or by the tick's takeover, is not.
    let finished = true;
    try {
      finished = await run(held.signal);
    } finally {
      // Taken over: the instance that took it runs it and marks it done.
      if (!held.lost && finished) await this.#finish(journal, schedule, tick, token, held);
      else if (!held.lost) await this.#release(journal, schedule, tick, token);
      else this.logger.info({ event: 'tick.run-stopped', schedule, tick }, 'the run of the scheduled tick taken over has stopped on this instance');
      held.release();
    }
  }

  /**
   * Marks the tick done, tried again while the tick is still this instance's: while the journal is out of reach (the
   * heartbeat cannot renew the tick either, and reports it lost once the journal answers, should another instance
   * have taken it), and for a lease while the journal answers heartbeats but not the finish: a tick left held then
   * would be renewed for as long as this instance lives, and run again once it stops. Given up after that, or on a
   * stop: another instance may run it again.
   */
  async #finish(journal: TickJournal, schedule: string, tick: string, token: number, held: { signal: AbortSignal; lost: boolean }): Promise<void> {
    const wait = AbortSignal.any([held.signal, this.stop]);
    let refusedMs = 0;
    let last = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await journal.finishTick(schedule, tick, token);
        if (attempt > 1) this.logger.info({ event: 'tick.finished-late', schedule, tick, attempts: attempt }, 'scheduled tick recorded as run');
        return;
      } catch (error) {
        const now = performance.now();
        if (this.leases.fresh) refusedMs += now - last;
        last = now;
        const taken = isWisbridgeError(error, 'LEASE_LOST') || held.lost;
        if (taken || wait.aborted || refusedMs >= this.leaseMs) {
          this.logger.warn({ schedule, tick, err: describeError(error) }, taken
            ? 'could not record the scheduled tick as run: another instance took it over'
            : 'could not record the scheduled tick as run: given up, another instance may run it again');
          if (!taken) await this.#release(journal, schedule, tick, token);
          return;
        }
        if (attempt === 1) this.logger.warn({ event: 'tick.finish-retried', schedule, tick, err: describeError(error) }, 'could not record the scheduled tick as run: tried again while the tick is held');
        await sleep(this.leaseMs / FINISH_TRIES, undefined, { signal: wait }).catch(() => undefined);
      }
    }
  }

  async #release(journal: TickJournal, schedule: string, tick: string, token: number): Promise<void> {
    await journal.releaseTick(schedule, tick, token).catch((error: unknown) => {
      this.logger.warn({ schedule, tick, err: describeError(error) }, 'could not give the unfinished scheduled tick up: its lease runs out by itself');
    });
  }
}
