import { describeError } from '../errors.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { pause, type Clock } from './clock.js';
import type { ServiceMetrics } from './metrics.js';

type TickJournal = Pick<Journal, 'instance' | 'claimTick' | 'finishTick'>;

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
 * leaves its tick unfinished for the same reason. A journal without an instance (a test's own runtime) runs every tick.
 */
export class SharedTicks {
  constructor(
    private readonly journal: () => Promise<TickJournal>,
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
   * catch-up, may run it again).
   */
  async once(schedule: string, at: number, run: () => Promise<boolean>): Promise<void> {
    const journal = await this.journal();
    if (journal.instance === null) {
      await run();
      return;
    }
    const tick = new Date(at).toISOString();
    let counted = false;
    for (;;) {
      if (this.stop.aborted) return;
      const claim = await journal.claimTick(schedule, tick, this.leaseMs);
      if (claim.won) {
        // A run that failed is over too; only one stopped by shutdown leaves its tick to be run again.
        let finished = true;
        try {
          finished = await run();
        } finally {
          if (finished) {
            await journal.finishTick(schedule, tick, claim.token).catch((error: unknown) => {
              this.logger.warn({ schedule, tick, err: describeError(error) }, 'could not record the scheduled tick as run');
            });
          }
        }
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
}
