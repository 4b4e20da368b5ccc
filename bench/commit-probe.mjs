// Preloaded into the bridge by bench/inbound.ts (`--import`): how long the bridge waits for the journal's commits (and, per thread, its garbage collection pauses).
// SQLite (synchronous=NORMAL: the WAL write, which holds the thread): every better-sqlite3 transaction's COMMIT (a
// transaction function's or an exec('COMMIT')), and statements run outside a transaction (autocommit); and apart, the
// syncs of the log that make them durable (src/journal/sqlite/wal-sync.ts: FileHandle.datasync, off the thread,
// several commits a sync when they come together). PostgreSQL
// (BENCH_JOURNAL=postgres; synchronous_commit=on: the round trip and the server's WAL flush): every COMMIT statement
// node-postgres sends, and INSERT / UPDATE / DELETE sent outside a transaction. Each thread writes its totals to
// BENCH_COMMIT_DIR/<pid>-<thread>.json every 50 commits, when it closes a connection and when it ends.
// Bench-only: the bridge's code knows nothing of it. The drivers are imported only when probed, pg only for
// PostgreSQL: loading pg in every thread cost the bridge's runs ~60 ms of start-up that was the probe's, not its own.
import { writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';

const dir = process.env.BENCH_COMMIT_DIR;
if (dir) {
  const { default: Database } = await import('better-sqlite3');
  const totals = { thread: threadId, commits: 0, ms: 0, syncs: 0, syncMs: 0, majorGcs: 0, gcMs: 0 };
  // The thread's garbage collection pauses, and how many were full (mark-compact) collections: a file thread whose
  // collections fall into their costly pattern shows three to four times as many (docs/performance.md).
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      totals.gcMs += entry.duration;
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) totals.majorGcs++;
    }
  }).observe({ entryTypes: ['gc'] });
  const save = () => writeFileSync(`${dir}/${process.pid}-${threadId}.json`, JSON.stringify(totals));
  const counted = (ms) => {
    totals.ms += ms;
    if (++totals.commits % 50 === 0) save();
  };
  process.on('exit', save);
  // a worker thread ended by terminate() sees no 'exit': its last figures are written when it closes its connection
  const close = Database.prototype.close;
  Database.prototype.close = function probedClose(...args) {
    save();
    return close.apply(this, args);
  };

  if (process.env.BENCH_JOURNAL === 'postgres') probePostgres((await import('pg')).default, counted, save);

  const handle = await open('/dev/null', 'r');
  const fileHandle = Object.getPrototypeOf(handle);
  await handle.close();
  const datasync = fileHandle.datasync;
  fileHandle.datasync = async function probedDatasync(...args) {
    const begin = performance.now();
    try {
      return await datasync.apply(this, args);
    } finally {
      totals.syncs++;
      totals.syncMs += performance.now() - begin;
    }
  };

  const transaction = Database.prototype.transaction;
  Database.prototype.transaction = function probedTransaction(fn) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the wrapped transaction's own 'this' is better-sqlite3's, not the database
    const db = this;
    let bodyEnd = 0;
    const plain = transaction.call(db, function body(...args) {
      const result = fn.apply(this, args);
      bodyEnd = performance.now();
      return result;
    });
    const timed = (variant) => function timedTransaction(...args) {
      const outer = !db.inTransaction;
      const result = variant.apply(this, args);
      if (outer) counted(performance.now() - bodyEnd);
      return result;
    };
    const wrapped = timed(plain);
    for (const kind of ['deferred', 'immediate', 'exclusive']) wrapped[kind] = timed(plain[kind]);
    return wrapped;
  };

  // The journal's units of work (src/journal/sqlite/port.ts) end with exec('COMMIT'), not a transaction function.
  const exec = Database.prototype.exec;
  Database.prototype.exec = function probedExec(sql) {
    if (sql !== 'COMMIT') return exec.call(this, sql);
    const begin = performance.now();
    const result = exec.call(this, sql);
    counted(performance.now() - begin);
    return result;
  };

  const prepare = Database.prototype.prepare;
  let patched = false;
  Database.prototype.prepare = function probedPrepare(...args) {
    const statement = prepare.apply(this, args);
    if (!patched) {
      patched = true;
      const proto = Object.getPrototypeOf(statement);
      const run = proto.run;
      proto.run = function probedRun(...runArgs) {
        // BEGIN of a transaction runs outside one; its COMMIT is timed above
        if (this.database.inTransaction || this.source.startsWith('BEGIN')) return run.apply(this, runArgs);
        const begin = performance.now();
        const result = run.apply(this, runArgs);
        counted(performance.now() - begin);
        return result;
      };
    }
    return statement;
  };
}

/** node-postgres: the COMMITs of units of work (src/journal/postgres/port.ts sends the text 'COMMIT') and autocommit writes. */
function probePostgres(pg, counted, save) {
  const query = pg.Client.prototype.query;
  const open = new WeakSet(); // clients inside BEGIN … COMMIT / ROLLBACK
  pg.Client.prototype.query = function probedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (text?.startsWith('BEGIN')) open.add(this);
    else if (text === 'ROLLBACK') open.delete(this);
    const timed = text === 'COMMIT' || (!open.has(this) && /^\s*(INSERT|UPDATE|DELETE)\b/i.test(text ?? ''));
    if (text === 'COMMIT') open.delete(this);
    const result = query.call(this, config, ...rest);
    if (!timed || typeof result?.then !== 'function') return result;
    const begin = performance.now();
    return result.finally(() => counted(performance.now() - begin));
  };
  // a worker thread's pool is ended before the thread is; its last figures are written then
  const end = pg.Pool.prototype.end;
  pg.Pool.prototype.end = function probedEnd(...args) {
    save();
    return end.apply(this, args);
  };
}
