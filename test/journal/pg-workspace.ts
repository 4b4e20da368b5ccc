import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openJournal, type Journal } from '../../src/journal/index.js';
import { cli, finished, workspace, type Workspace, type WorkspaceOptions } from '../pipeline/helpers.js';
import { freshDatabase, type FreshDatabase } from '../support/postgres.js';

/**
 * The pipeline tests' workspace (emulator, local drop, the repository's mappings) with its journal on a fresh database
 * of the run's PostgreSQL server instead of a SQLite file: for the commands run through the CLI on that engine.
 */
export interface PgWorkspace extends Workspace {
  db: FreshDatabase;
  /** Runs `wisbridge ARGS --config FILE` to its end (the child inherits the database password's variable). */
  run(...args: string[]): ReturnType<typeof finished>;
  /** A connection of its own to the journal, closed after fn. */
  withJournal<T>(fn: (journal: Journal) => Promise<T>): Promise<T>;
  /** One statement as the database's owner (the bridge's role), for what no command does (moving rows back in time). */
  query(sql: string): Promise<void>;
}

/** The database and the folder are removed by `cleanups` (useCleanups of test/service/support.ts). */
export async function pgWorkspace(
  emu: { url: string; token: string }, cleanups: Array<() => void | Promise<void>>, options: Partial<WorkspaceOptions> = {},
): Promise<PgWorkspace> {
  const db = await freshDatabase();
  const ws = workspace({ url: emu.url, token: emu.token, ...options });
  cleanups.push(() => db.drop(), () => rmSync(ws.dir, { recursive: true, force: true }));
  writeFileSync(ws.configFile, readFileSync(ws.configFile, 'utf8').replace(/^journal: .*$/m, `journal: ${JSON.stringify(db.config)}`));
  return {
    ...ws,
    db,
    run: (...args) => finished(cli([...args, '--config', ws.configFile])),
    async withJournal(fn) {
      const journal = await openJournal(db.config);
      try {
        return await fn(journal);
      } finally {
        await journal.close();
      }
    },
    async query(sql) {
      const server = inject('postgres');
      const client = new pg.Client({ host: server.host, port: server.port, user: server.owner.user, password: server.owner.password, database: db.name });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    },
  };
}
