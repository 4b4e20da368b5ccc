import { z } from 'zod';

/**
 * The configuration of a journal on PostgreSQL (`journal:` in the configuration file), declared beside the code like
 * the drops' options. Secrets go by reference only; the URL names the role, host, port and database and nothing else.
 * Apart from the connection (connect.ts): a bridge on SQLite starting on a checked configuration does not load zod.
 */
// The configuration's `{ env } | { file }`, declared here rather than imported: src/config/schema.ts imports this file.
const secretRef = z.union([
  z.strictObject({ env: z.string().min(1).describe('name of an environment variable holding the secret') }),
  z.strictObject({ file: z.string().min(1).describe('path of a file holding the secret (relative to the config file)') }),
]);

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL: write postgres://user@host:port/database';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return 'must start with postgres://';
  if (url.password !== '') return 'holds a password: secrets go by reference, as password: { env: NAME } or { file: PATH }';
  if (url.username === '') return 'names no user: write postgres://user@host:port/database';
  if (url.hostname === '') return 'names no host: write postgres://user@host:port/database';
  if (url.pathname.length <= 1 || url.pathname.slice(1).includes('/')) return 'names no database: write postgres://user@host:port/database';
  if (url.search !== '' || url.hash !== '') return 'takes no parameters: TLS goes under tls:, connections under pool:';
  return undefined;
}

export const postgresJournalSchema = z.strictObject({
  url: z.string().min(1).superRefine((url, ctx) => {
    const problem = urlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }).describe('`postgres://user@host:port/database` (port 5432 when left out); no password in it'),
  password: secretRef.optional().describe('the role\'s password, by reference: `{ env: NAME }` or `{ file: PATH }`'),
  tls: z.strictObject({
    ca: z.string().min(1).optional().describe('file of the certificate authorities the server\'s certificate is checked against (PEM); the system\'s when absent'),
    reject_unauthorized: z.boolean().default(true).describe('refuse a server whose certificate does not check out; false only for tests'),
    cert: z.string().min(1).optional().describe('file of the client certificate (PEM), for certificate logins'),
    key: z.string().min(1).optional().describe('file of the client certificate\'s private key (PEM)'),
  }).refine((tls) => (tls.cert === undefined) === (tls.key === undefined), { error: 'cert and key go together', path: ['key'] })
    .optional().describe('connect over TLS (files relative to the config file); plain TCP when absent'),
  pool: z.strictObject({
    max: z.number().int().min(1).max(1000).default(10).describe('connections open at most'),
    connect_timeout_ms: z.number().int().min(100).default(10_000).describe('deadline of opening a connection'),
    statement_timeout_ms: z.number().int().min(0).default(120_000).describe('the server cancels a statement running longer (0 = never)'),
    idle_in_transaction_timeout_ms: z.number().int().min(0).default(60_000)
      .describe('the server ends a session whose transaction waits longer for its next statement (0 = never)'),
  }).prefault({}).describe('the connection pool'),
  schema: z.string().regex(IDENTIFIER, { error: 'must be a lower-case SQL name (letters, digits, _)' }).optional()
    .describe('the schema holding the journal\'s tables (created by the first migration when missing); the role\'s search_path when absent'),
}).describe('A journal on PostgreSQL.');

export type PostgresJournalConfig = z.output<typeof postgresJournalSchema>;
export type PostgresJournalInput = z.input<typeof postgresJournalSchema>;

