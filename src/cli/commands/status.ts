import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/load.js';
import { openJournal } from '../../journal/index.js';
import { formatStatus, statusReport } from '../../service/status.js';
import { intOption, parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge status [--config FILE] [--limit N] [--rows N] [--json]

Summarizes the journal: the backlog, the N most recent files (default 20) with their row counts,
and up to --rows (default 50) failed and uncertain rows with file, line, key and message.`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, limit: { type: 'string' }, rows: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  if (!existsSync(loaded.journalPath)) {
    process.stdout.write(`journal: ${loaded.journalPath} does not exist yet: nothing has run with this configuration\n`);
    return 0;
  }
  const journal = openJournal(loaded.journalPath);
  try {
    const report = statusReport(journal, { limit: intOption(values.limit, 'limit', 20), rows: intOption(values.rows, 'rows', 50) });
    process.stdout.write((values.json ? JSON.stringify(report, null, 2) : formatStatus(report)) + '\n');
  } finally {
    journal.close();
  }
  return 0;
}
