import type { AllOkRequest } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { CommitUnit, Committed, FileRequests, FileStep, StoredOutcome } from './file-batches.js';
import { storeOutcomes } from './outcomes.js';
import type { SenderContext } from './types.js';
import type { UndecidedShare } from './undecided.js';

/** How long a request's outcome may wait for the next request's commit before it is committed on its own. */
export const COMPLETION_WAIT_MS = 20;

const NO_BODIES: readonly Record<string, unknown>[] = [];

/** One unit in one transaction (one fsync): every commit of a file's flow, on whichever thread maps it. */
export function applyUnit(journal: SenderContext['journal'], logger: Logger, unit: CommitUnit): Promise<Committed> {
  return journal.transaction(async (tx) => {
    // Rows rejected or skipped go in first: recording the requests checks that no item row falls in their seqs.
    if (unit.extra.length > 0) await tx.addItems(unit.fileId, unit.extra);
    // The rest started together, not one after the other: on PostgreSQL their statements go out in one round trip
    // (the connection pipelines), where each would be a round trip the next request waits for. Any of them failing
    // fails the unit, and none reads what another writes (each request's rows are its own).
    let confirmed = 0;
    const allOk: AllOkRequest[] = [];
    const writes: Promise<unknown>[] = [];
    for (const s of unit.stores) {
      if ('packed' in s) allOk.push({ requestId: s.requestId, outcomes: s.packed });
      else writes.push(storeOutcomes({ journal: tx, logger }, s.requestId, s.endpoint, s.bodies ?? NO_BODIES, s.outcomes).then((n) => (confirmed += n)));
    }
    if (allOk.length > 0) writes.push(tx.completeRequests(allOk));
    if (unit.index !== undefined && unit.index.length > 0) writes.push(tx.indexBlocks(unit.fileId, unit.index));
    const recorded = tx.recordBatches(unit.fileId, unit.requests, { sent: true });
    const [requestIds] = await Promise.all([recorded, ...writes]);
    return { requestIds, confirmed };
  });
}

/**
 * Group commit of request outcomes. Every commit waits for a sync of the journal, milliseconds each
 * (docs/performance.md, "Settings chosen by measurement"): a request's outcome waits here for the next request's
 * record and is committed with it, one fsync for both, or on its own after COMPLETION_WAIT_MS when no request follows
 * (and always before the file ends). A crash before that commit leaves
 * the request `sent`, which resume reconciles like a crash between the answer and its commit always was (read back, or
 * uncertain): nothing is applied twice; the window is the one extra wait. Commits reach the journal in call order.
 */
export class CompletionQueue {
  private queued: StoredOutcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** A commit on the timer that failed: rethrown to the file's flow at its next commit. */
  private failure: { error: unknown } | undefined;
  /**
   * The commit under way (the timer's or the flow's), settled: the next one waits for it. Without it, the file's
   * last flush found the queue empty while the timer's commit of the last outcomes was still on its way, and the
   * file was finished before them (JOURNAL_STATE "still has … sent items"; PostgreSQL runs the two on two connections).
   */
  private tail: Promise<unknown> = Promise.resolve();

  /** `share`: the file's slots of its service's undecided requests; without it, a commit records up to the room asked. */
  constructor(private readonly requests: FileRequests, private readonly logger: Logger, private readonly share?: UndecidedShare) {}

  add(store: StoredOutcome): void {
    this.queued.push(store);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.commit((stores) => this.requests.store(stores), 0, true).catch(() => undefined);
    }, COMPLETION_WAIT_MS).unref();
  }

  /**
   * The file's next commit (FileRequests.next: up to `room` requests, as many as the share grants then) with what is
   * queued; if it fails, the queued outcomes were not committed and stay queued. `starved`: the share granted none.
   */
  next(stop: boolean, room = 1): Promise<FileStep & { starved: boolean }> {
    let granted = 0;
    return this.commit((stores, most) => {
      granted = most;
      return this.requests.next(stores, stop, most);
    }, stop ? 0 : room).then((step) => ({ ...step, starved: !stop && room > 0 && granted === 0 }));
  }

  /** Commits what is queued now, once the commit under way (if any) is over. */
  async flush(): Promise<void> {
    this.clearTimer();
    await this.tail;
    if (this.failure) throw this.failure.error;
    if (this.queued.length > 0) await this.commit((stores) => this.requests.store(stores), 0);
  }

  /**
   * Runs after the commit under way, with what is queued then and `most` new requests of `room` (what the share
   * grants, at this moment); `background`: the timer's, whose failure is kept for the flow.
   */
  private commit<T extends { confirmed: number; requests?: readonly unknown[] }>(run: (stores: readonly StoredOutcome[], most: number) => Promise<T>, room: number, background = false): Promise<T> {
    const turn = this.tail.then(async () => {
      if (this.failure) throw this.failure.error;
      const stores = this.queued;
      this.queued = [];
      this.clearTimer();
      const most = this.share && room > 0 ? this.share.grant(room, stores.length) : room;
      try {
        const done = await run(stores, most);
        this.share?.settle(stores.length, done.requests?.length ?? 0);
        if (done.confirmed > 0) this.logger.info({ confirmed: done.confirmed }, 'acknowledgements from the WMS recorded for the exported work lists');
        return done;
      } catch (error) {
        this.share?.settle(0, 0);
        this.queued = [...stores, ...this.queued];
        if (background) this.failure ??= { error };
        throw error;
      }
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
