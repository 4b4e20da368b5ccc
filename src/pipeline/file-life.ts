import type { FileOutcome } from './types.js';

/*
 * One inbox file's life in one run, as one state machine: every way a run of a file ends (the first pass, a watched
 * or scheduled file, `wisbridge process`, a file another instance left and this one takes over, an operator's
 * re-drive) is one named transition of this table, and a move the table does not list is refused. The operations
 * are named as Apache Camel's GenericFileProcessStrategy names them: `begin` takes the file (the journal's claim, or
 * the take of a file another instance left), `commit` disposes of a decided file (its result file written, the file
 * moved to archive/ or error/), `rollback` leaves it in the inbox for a later run (stopped, a fatal error, still being
 * written, waiting for its checksum file), `abort` gives it up to someone else (another instance holds or took it,
 * it left the inbox).
 */

/**
 * - `found`: met in the inbox (name, mapping, the bytes read once);
 * - `claimed`: the journal's claim (new or resumed), a duplicate's event, or a finished file's take is this run's;
 * - `read`: the claimed bytes are being mapped, what an earlier run left in flight reconciled;
 * - `sent`: every request of the file answered or recorded;
 * - `decided`: the file's status recorded (done, failed, rejected; a duplicate's rows skipped);
 * - `disposed` (commit), `released` (rollback), `aborted` (abort): the run's end.
 */
export type FileState = 'found' | 'claimed' | 'read' | 'sent' | 'decided' | 'disposed' | 'released' | 'aborted';

export type FileEvent = 'begin' | 'read' | 'send' | 'decide' | 'commit' | 'rollback' | 'abort';

/** How a run ends: the three last operations. */
export type FileEnding = Extract<FileEvent, 'commit' | 'rollback' | 'abort'>;

const ENDINGS = { rollback: 'released', abort: 'aborted' } as const;

/**
 * The legal moves. A file rejected before it was claimed (bad name, no mapping, unreadable bytes) is decided from
 * `found`; a file whose status a run before recorded (finished, not moved) is decided once taken; a whole-file failure
 * mid-file is decided from `read`.
 */
export const TRANSITIONS: Readonly<Record<FileState, Readonly<Partial<Record<FileEvent, FileState>>>>> = {
  found: { begin: 'claimed', decide: 'decided', ...ENDINGS },
  claimed: { read: 'read', decide: 'decided', ...ENDINGS },
  read: { send: 'sent', decide: 'decided', ...ENDINGS },
  sent: { decide: 'decided', ...ENDINGS },
  decided: { commit: 'disposed', ...ENDINGS },
  disposed: {},
  released: {},
  aborted: {},
};

/** A move the table does not allow: a bug in the flow, never the operator's doing. */
export class FileLifeError extends Error {
  constructor(readonly from: FileState, readonly event: FileEvent | undefined, readonly file: string, message?: string) {
    super(message ?? `file ${file}: ${event} is not allowed from ${from} (allowed: ${Object.keys(TRANSITIONS[from]).join(', ') || 'nothing, the run ended'})`);
    this.name = 'FileLifeError';
  }
}

/** The state `event` leads to from `from`; throws FileLifeError when the table has no such move. */
export function transition(from: FileState, event: FileEvent, file = '?'): FileState {
  const to = TRANSITIONS[from][event];
  if (to === undefined) throw new FileLifeError(from, event, file);
  return to;
}

/** Which ending each report outcome is: the run's report and its life agree (`FileLife.ended`). */
export const ENDING_OF: Readonly<Record<Exclude<FileOutcome, 'dry-run'>, FileEnding>> = {
  done: 'commit', failed: 'commit', rejected: 'commit', duplicate: 'commit',
  interrupted: 'rollback', changed: 'rollback', waiting: 'rollback',
  busy: 'abort', lost: 'abort', vanished: 'abort',
};

/** One run of one file: its state, moved only by the table. */
export class FileLife {
  private current: FileState = 'found';
  private last: FileEnding | undefined;

  constructor(readonly file: string) {}

  get state(): FileState {
    return this.current;
  }

  /** The operation that ended the run, once it ended. */
  get ending(): FileEnding | undefined {
    return this.last;
  }

  /** Takes the file: the journal's claim, a duplicate's event, or a finished file's take. */
  begin(): void {
    this.move('begin');
  }

  read(): void {
    this.move('read');
  }

  sent(): void {
    this.move('send');
  }

  decide(): void {
    this.move('decide');
  }

  /** The decided file is disposed of: result file written, moved out of the inbox (or kept where `process` read it). */
  commit<T>(value: T): T {
    this.move('commit');
    return value;
  }

  /** The file stays in the inbox and is run again later. */
  rollback<T>(value: T): T {
    this.move('rollback');
    return value;
  }

  /** The file is someone else's (another instance holds it or took it over) or gone: nothing more is done here. */
  abort<T>(value: T): T {
    this.move('abort');
    return value;
  }

  /** Ends the run by the operation the report's outcome stands for (a run that ends in one place for several outcomes). */
  ended<T extends { outcome: FileOutcome }>(report: T): T {
    if (report.outcome === 'dry-run') return this.settled(report);
    this.move(ENDING_OF[report.outcome]);
    return report;
  }

  /** The run is over, and ended by the operation its report's outcome stands for; throws FileLifeError otherwise. */
  settled<T extends { outcome: FileOutcome }>(report: T): T {
    const expected = report.outcome === 'dry-run' ? undefined : ENDING_OF[report.outcome];
    if (expected === undefined || this.last !== expected) {
      throw new FileLifeError(this.current, this.last, this.file,
        `file ${this.file}: its run ended ${this.last === undefined ? `without an ending (in ${this.current})` : `by ${this.last}`}, but its outcome ${report.outcome} stands for ${expected ?? 'no run of a file'}`);
    }
    return report;
  }

  private move(event: FileEvent): void {
    this.current = transition(this.current, event, this.file);
    if (event === 'commit' || event === 'rollback' || event === 'abort') this.last = event;
  }
}
