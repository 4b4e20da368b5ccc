/**
 * What a process's connections to the journal spent committing and syncing, summed since it started: the /metrics
 * counters that show a slow disk or a distant database before the files do. A commit holds its thread (SQLite
 * writing its pages to the log, PostgreSQL the COMMIT's round trip); SQLite's sync of the log holds the commits'
 * Promises, not the thread (WalSync), and several commits share one.
 */
export interface JournalTimings {
  /** Units of work committed (SQLite: single writes outside a unit too, which commit on their own). */
  commits: number;
  commitSeconds: number;
  /** SQLite: the fdatasync calls of the log that made commits durable; PostgreSQL: none (the server syncs). */
  syncs: number;
  syncSeconds: number;
}

/** Where a process's connections add their commits and syncs (a worker thread's arrive when it ends). */
export class JournalTally implements JournalTimings {
  commits = 0;
  commitSeconds = 0;
  syncs = 0;
  syncSeconds = 0;

  commit(seconds: number): void {
    this.commits++;
    this.commitSeconds += seconds;
  }

  sync(seconds: number): void {
    this.syncs++;
    this.syncSeconds += seconds;
  }

  /** What a worker thread's `close` returned: its connection's snapshot (nothing when it did not close cleanly). */
  addClosed(closed: unknown): void {
    if (closed !== undefined && closed !== null) this.add(closed as JournalTimings);
  }

  add(other: JournalTimings): void {
    this.commits += other.commits;
    this.commitSeconds += other.commitSeconds;
    this.syncs += other.syncs;
    this.syncSeconds += other.syncSeconds;
  }

  /** The figures as plain data (they cross from a worker thread as such). */
  snapshot(): JournalTimings {
    return { commits: this.commits, commitSeconds: this.commitSeconds, syncs: this.syncs, syncSeconds: this.syncSeconds };
  }
}

/** Seconds since `start` (a performance.now() reading). */
export const secondsSince = (start: number): number => (performance.now() - start) / 1000;
