import { existsSync } from 'node:fs';
import { loadConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { openJournal } from '../../journal/index.js';
import { parseStatuses, ROW_STATUSES } from '../../service/row-statuses.js';
import { expectedFileViews } from '../../schedule/index.js';
import { forgetInstance, formatExpected, formatStatus, statusReport } from '../../service/status.js';
import { intOption, parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge status [--config FILE] [--limit N] [--rows N] [--json]
       wisbridge status [--config FILE] --forget-instance ID
       wisbridge status [--config FILE] --file NAME|ID [--status S[,S...]] [--rows N] [--json]

Summarizes the journal: its size and oldest entry, the backlog, the N most recent files (default 20; duplicates
and files rejected before a claim included) with their document counts, and up to --rows (default 50) failed and
uncertain documents with file, line, key and message. Cut lists say "showing N of M".

--file: the input rows of one file in line order (line, document key, status, what the service returned, error),
as its result file has them; --status keeps rows of those statuses (${ROW_STATUSES.join(', ')}). For an X12
file, also its interchanges, groups and sets counted, its acknowledgement and its first refused sets.

Instances are live (a heartbeat within instance.lease_ms), stopped, lost (no heartbeat for longer than a lease and
never stopped: killed, crashed, host gone; alerted) or replaced (silent, but an instance started on its host since).
--forget-instance: removes a lost, stopped or replaced instance from the list (its host is gone for good); its
lost alert is cleared. A live instance is refused.

With expected files configured (inbound \`expect\`), also lists each one with its next due time and the time a
missing file is alerted (business calendars and grace periods applied).`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, limit: { type: 'string' }, rows: { type: 'string' }, json: { type: 'boolean' },
    file: { type: 'string' }, status: { type: 'string' }, 'forget-instance': { type: 'string' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (values.status !== undefined && values.file === undefined) throw new WisbridgeError('USAGE', '--status needs --file NAME|ID');
  const statuses = parseStatuses(values.status);
  const rows = intOption(values.rows, 'rows', 50);
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  const expected = expectedFileViews(loaded.config, Date.now());
  if (loaded.journalFile !== undefined && !existsSync(loaded.journalFile)) {
    if (values.json) {
      process.stdout.write(JSON.stringify({ journal: loaded.journalFile, exists: false, expected }, null, 2) + '\n');
      return 0;
    }
    process.stdout.write(`journal: ${loaded.journalFile} does not exist yet: nothing has run with this configuration\n`);
    if (expected.length > 0 && values.file === undefined) process.stdout.write(formatExpected(expected) + '\n');
    return 0;
  }
  const journal = await openJournal(loaded.journal);
  try {
    const forget = values['forget-instance'];
    if (forget !== undefined) {
      const gone = await forgetInstance(journal, forget, loaded.config.instance.lease_ms);
      process.stdout.write(`instance ${gone.id} (${gone.host}, pid ${gone.pid}, ${gone.state}, last heartbeat ${gone.heartbeatAt}) forgotten\n`);
      return 0;
    }
    if (values.file !== undefined) {
      // One file's rows need the pipeline's file lookup, which loads the whole pipeline: only for --file.
      const [{ neverClaimed }, { fileRowsReport, formatFileRows }] = await Promise.all([import('../../pipeline/index.js'), import('../../service/file-rows.js')]);
      // A name the bridge met but never claimed (a duplicate, a file rejected unread) is an answer, not a usage error.
      if (!/^\d+$/.test(values.file) && !(await journal.latestFileNamed(values.file))) {
        const note = await neverClaimed(journal, values.file);
        if (note !== undefined) {
          process.stdout.write(`${note}\n`);
          return 0;
        }
      }
      const report = await fileRowsReport(journal, values.file, { statuses, limit: rows });
      process.stdout.write((values.json ? JSON.stringify(report, null, 2) : formatFileRows(report)) + '\n');
      return 0;
    }
    const report = { ...(await statusReport(journal, { limit: intOption(values.limit, 'limit', 20), rows, leaseMs: loaded.config.instance.lease_ms, partners: loaded.config.partners })), expected };
    process.stdout.write((values.json ? JSON.stringify(report, null, 2) : formatStatus(report) + (expected.length ? `\n\n${formatExpected(expected)}` : '')) + '\n');
  } finally {
    await journal.close();
  }
  return 0;
}
