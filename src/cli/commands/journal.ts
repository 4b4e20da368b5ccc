import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { createRuntime } from '../../runtime/runtime.js';
import { parseAge, runRetention, type RetentionReport } from '../../service/retention.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge journal prune --config FILE --older-than AGE [--drops] [--json]
       wisbridge journal stats --config FILE [--json]

prune: drops the rows, request bodies and results of files finished longer ago than AGE (30d, 12h) that have no
open rows (uncertain, or a request pending or sent). Each file keeps its row — name, checksum, status, counts — so
the same content dropped again is still recognised as a duplicate; \`status --file\` then says the rows were pruned.
Deletes run in small transactions: safe beside a running bridge. --drops also deletes files in archive/ and outbox/
older than the drops' archive_retention_days / outbox_retention_days. The file does not shrink: freed pages are reused.
stats: the journal's size, file counts and oldest entry.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, 'older-than': { type: 'string' }, drops: { type: 'boolean' }, json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, true);
  const [action, ...extra] = positionals;
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if ((action !== 'prune' && action !== 'stats') || extra.length > 0) throw new WisbridgeError('USAGE', 'give prune or stats (see wisbridge journal --help)');
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
        `journal: ${stats.path}`, `size: ${stats.bytes} bytes (${stats.freeBytes} free inside the file)`,
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
