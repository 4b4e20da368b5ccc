import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { migrateJournal, type MigrationReport, type MigrationTarget } from '../../journal/index.js';
import { createLogger } from '../../log.js';
import { createRuntime } from '../../runtime/runtime.js';
import { parseAge, runRetention, type RetentionReport } from '../../service/retention.js';
import { scheduleCursor } from '../../service/service.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge journal prune --config FILE --older-than AGE [--drops] [--json]
       wisbridge journal stats --config FILE [--json]
       wisbridge journal migrate --from JOURNAL.sqlite (--to postgres://USER@HOST:PORT/DB [--password-env NAME | --password-file PATH] | --config FILE) [--json]

prune: drops the rows, request bodies and results of files finished longer ago than AGE (30d, 12h) that have no
open rows (uncertain, or a request pending or sent). Each file keeps its row — name, checksum, status, counts — so
the same content dropped again is still recognised as a duplicate; \`status --file\` then says the rows were pruned.
Deletes run in small transactions: safe beside a running bridge. --drops also deletes files in archive/ and outbox/
older than the drops' archive_retention_days / outbox_retention_days. The file does not shrink: freed pages are reused.
stats: the journal's size, file counts and oldest entry.
migrate: copies a SQLite journal, every table and row as it is (files and checksums, requests, outcomes, uncertain
rows, result names, exports and acknowledgements, cursors with the schedules' last runs, operator actions), into an
empty journal on PostgreSQL, in one transaction, then prints and verifies the row counts of every table. The target
is --to (the password from an environment variable or a file, never on the command line) or the journal: of --config.
Refuses a target that holds any journal row. Stop the bridge first: what it records during the copy is not copied.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, 'older-than': { type: 'string' }, drops: { type: 'boolean' }, json: { type: 'boolean' },
    from: { type: 'string' }, to: { type: 'string' }, 'password-env': { type: 'string' }, 'password-file': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, true);
  const [action, ...extra] = positionals;
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if ((action !== 'prune' && action !== 'stats' && action !== 'migrate') || extra.length > 0) {
    throw new WisbridgeError('USAGE', 'give prune, stats or migrate (see wisbridge journal --help)');
  }
  if (action === 'migrate') return migrate(values);
  if (action === 'prune' && values['older-than'] === undefined) throw new WisbridgeError('USAGE', 'prune needs --older-than AGE, e.g. 30d');
  const ageMs = values['older-than'] === undefined ? undefined : parseAge(values['older-than']);
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  if (loaded.journalFile !== undefined && !existsSync(loaded.journalFile)) {
    process.stdout.write(`journal: ${loaded.journalFile} does not exist yet: nothing has run with this configuration\n`);
    return 0;
  }
  const runtime = createRuntime(loaded, { logger: createLogger({ level: loaded.config.log.level }) });
  try {
    const journal = await runtime.journal();
    if (action === 'stats') {
      const stats = await journal.journalStats();
      process.stdout.write((values.json ? JSON.stringify(stats, null, 2) : [
        `journal: ${stats.path}`, `size: ${stats.bytes} bytes${loaded.journalFile === undefined ? ' (the database)' : ` (${stats.freeBytes} free inside the file)`}`,
        `files: ${stats.files} (${stats.prunedFiles} pruned)`, `oldest entry: ${stats.oldestEntry ?? '-'}`, `oldest file with rows: ${stats.oldestDetail ?? '-'}`,
      ].join('\n')) + '\n');
      return 0;
    }
    const report = await runRetention(runtime, { journalAgeMs: ageMs, drops: values.drops === true, now: Date.now() });
    process.stdout.write((values.json ? JSON.stringify(report, null, 2) : formatRetention(report)) + '\n');
    return report.errors.length > 0 ? 1 : 0;
  } finally {
    await runtime.close();
  }
}

interface MigrateValues {
  from?: string;
  to?: string;
  config?: string;
  'password-env'?: string;
  'password-file'?: string;
  json?: boolean;
}

async function migrate(values: MigrateValues): Promise<number> {
  if (values.from === undefined) throw new WisbridgeError('USAGE', 'migrate needs --from JOURNAL.sqlite');
  if (!existsSync(values.from)) throw new WisbridgeError('USAGE', `--from ${values.from}: no such file`);
  const report = await migrateJournal(values.from, await migrationTarget(values), {
    // On stdout with the summary, so the progress lines come before it however the two streams are read.
    onTable: values.json ? undefined : (table, rows, ms) => process.stdout.write(`copied ${table}: ${rows} row(s) in ${ms} ms\n`),
  });
  process.stdout.write((values.json ? JSON.stringify(report, null, 2) : formatMigration(report)) + '\n');
  if (!report.verified) {
    throw new WisbridgeError('JOURNAL', 'the row counts of the copy differ from the source\'s (see the table): the copy was rolled back, the target holds nothing of it');
  }
  return 0;
}

/** --to URL with its password by reference, or the PostgreSQL journal: of --config. */
async function migrationTarget(values: MigrateValues): Promise<MigrationTarget> {
  const passwords = [values['password-env'], values['password-file']].filter((v) => v !== undefined).length;
  if ((values.to === undefined) === (values.config === undefined)) {
    throw new WisbridgeError('USAGE', 'give the target as --to postgres://user@host:port/database or as --config FILE (its journal:), one of the two');
  }
  if (values.config !== undefined) {
    if (passwords > 0) throw new WisbridgeError('USAGE', '--password-env and --password-file go with --to; with --config the password is the journal\'s password:');
    const { journal } = await loadConfig(values.config);
    if (typeof journal === 'string' || 'engine' in journal) {
      throw new WisbridgeError('USAGE', `the journal: of ${values.config} is a SQLite file, not a PostgreSQL database: name the target there as { url: postgres://…, password: … }`);
    }
    return journal;
  }
  // Checked here so that the message names the option, not the configuration key; the URL is not echoed (it may hold the secret).
  if (URL.canParse(values.to!) && new URL(values.to!).password !== '') {
    throw new WisbridgeError('USAGE', '--to holds a password: a password on the command line is visible to every user of the machine; give it with --password-env NAME or --password-file PATH');
  }
  if (passwords > 1) throw new WisbridgeError('USAGE', 'give --password-env or --password-file, not both');
  const password = values['password-env'] !== undefined ? { env: values['password-env'] }
    : values['password-file'] !== undefined ? { file: values['password-file'] } : undefined;
  return { url: values.to!, password, baseDir: process.cwd() };
}

function formatMigration(report: MigrationReport): string {
  const width = Math.max(5, ...report.tables.map((t) => t.table.length));
  const number = (n: number) => n.toLocaleString('en-US').padStart(12);
  const schedules = report.cursors.filter((key) => key.startsWith(scheduleCursor('')));
  const seconds = report.ms / 1000;
  return [
    '',
    // Each engine numbers its own schema versions: side by side, bare numbers read as a downgrade.
    `from: ${report.from} (SQLite journal, SQLite schema ${report.schemaVersion}, current)`,
    `to:   ${report.to} (PostgreSQL journal, PostgreSQL schema ${report.targetSchemaVersion}, current; the engines number their schemas each on its own)`,
    '',
    `${'table'.padEnd(width)}${'SQLite'.padStart(12)}${'PostgreSQL'.padStart(12)}`,
    ...report.tables.map((t) => `${t.table.padEnd(width)}${number(t.source)}${number(t.target)}${t.source === t.target ? '' : '   DIFFERS'}`),
    '',
    `schedules' last runs (copied in cursors): ${schedules.length === 0 ? 'none recorded' : schedules.map((key) => key.slice(scheduleCursor('').length)).join(', ')}`,
    report.verified
      ? `verified: every table holds as many rows as the source; ${report.rows} row(s) copied in ${seconds.toFixed(1)} s `
        + `(${Math.round(report.rows / Math.max(seconds, 0.001))} rows/s); new ids continue after the highest copied`
      : 'NOT verified: the counts differ; the copy was rolled back',
  ].join('\n');
}

function formatRetention(report: RetentionReport): string {
  const out: string[] = [];
  const j = report.journal;
  if (j) {
    out.push(`journal: ${j.files} file(s) finished before ${report.olderThan} pruned (${j.items} row(s), ${j.blocks} block(s), ${j.requests} request(s)); ` +
      `${j.keptOpen} kept because they still have open rows; ${j.events} file event(s) dropped`);
  }
  for (const d of report.drops) {
    for (const f of d.folders) out.push(`drop ${d.drop}: ${f.removed.length} file(s) deleted from ${f.folder}/`);
  }
  for (const e of report.errors) out.push(`drop ${e.drop}: not cleaned: ${e.error}`);
  return out.join('\n');
}
