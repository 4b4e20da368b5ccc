import pg from 'pg';
import { WisbridgeError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { JournalTally } from '../core/timings.js';
import { journalDatabaseError, poolConfig, postgresTarget, type ConnectOptions, type PostgresJournalInput } from './connect.js';
import { postgresJournalSchema } from './options.js';
import { migrate } from './migrations.js';
import { journalTypes, PostgresPort } from './port.js';

export { postgresJournalSchema, type PostgresJournalConfig, type PostgresJournalInput } from './options.js';
export { PG_SCHEMA_VERSION } from './migrations.js';
export { PostgresPort } from './port.js';

export interface OpenPostgresOptions extends ConnectOptions {
  /** Where an idle connection's failure is reported. */
  logger?: Logger;
  /** Where the connections add their commits (/metrics). */
  tally?: JournalTally;
}

/** The journal's engine on PostgreSQL: its port, and what the journal reports about where it lives. */
export interface PostgresEngine {
  port: PostgresPort;
  /** `postgres://user@host:port/database`: no secret. */
  location: string;
  schemaVersion: number;
  /**
   * The database's size and where it is (`postgres://user@host:port/database`, no secret). freeBytes is 0: the server
   * reuses the space freed inside its tables (VACUUM) and tells a client no figure for it without an extension.
   */
  storage(): Promise<{ location: string; bytes: number; freeBytes: number }>;
  close(): Promise<void>;
}

/**
 * Opens the journal on a PostgreSQL server: reads the secrets, connects, and brings the schema to this bridge's
 * version (refusing a newer one). Every failure is a WisbridgeError in an operator's words, without the password.
 */
export async function openPostgres(config: PostgresJournalInput, options: OpenPostgresOptions = {}): Promise<PostgresEngine> {
  const parsed = postgresJournalSchema.safeParse(config);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${['journal', ...issue.path].join('.')}: ${issue.message}`);
    throw new WisbridgeError('CONFIG_INVALID', problems.join('; '), { details: { problems } });
  }
  const target = postgresTarget(parsed.data);
  const settings = await poolConfig(parsed.data, options);
  const translate = (error: unknown) => journalDatabaseError(error, target, settings.password());
  const { tally } = options;
  const port = new PostgresPort(new pg.Pool({ ...settings.pool, types: journalTypes, pipeline: true }), { logger: options.logger, translate, onCommit: tally && ((seconds) => tally.commit(seconds)) });
  let schemaVersion: number;
  try {
    schemaVersion = await migrate(port.pool, { schema: parsed.data.schema });
  } catch (error) {
    await port.close();
    throw translate(error);
  }
  return {
    port,
    location: target.location,
    schemaVersion,
    storage: async () => {
      const size = await port.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes');
      return { location: target.location, bytes: size?.bytes ?? 0, freeBytes: 0 };
    },
    close: () => port.close(),
  };
}
