// The journal a bench gives the bridge: SQLite in its workspace, or a fresh database on a PostgreSQL server of the
// bench's own (test/support/postgres.ts: fsync and synchronous_commit on), reached directly or, BENCH_PG_RTT=ms,
// through test/support/delay-proxy.ts adding that round trip, as instances on other machines reach a shared one.
import { startDelayProxy, throughProxy } from '../test/support/delay-proxy.js';
import { freshDatabase, type PostgresServer } from '../test/support/postgres.js';

/** The configuration's `journal:` lines, and what closes them when the run is over. */
export interface BenchJournal {
  yaml: string;
  close(): Promise<void>;
}

export const sqliteJournal: BenchJournal = { yaml: 'journal: journal.sqlite', close: async () => undefined };

/** A fresh database on `server`; its password's variable is set in this process, so the bridge inherits it. */
export async function postgresJournal(server: PostgresServer): Promise<BenchJournal> {
  const db = await freshDatabase(server);
  const rttMs = Number(process.env.BENCH_PG_RTT ?? 0);
  const link = rttMs > 0 ? await startDelayProxy({ host: server.host, port: server.port }, rttMs / 2) : undefined;
  const url = link ? throughProxy(db.url, server, link) : db.url;
  return { yaml: `journal:\n  url: ${url}\n  password: { env: ${db.password.env} }`, close: async () => await link?.close() };
}
