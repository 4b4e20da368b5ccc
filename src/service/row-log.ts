import { describeError } from '../errors.js';
import type { OperatorJournal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { joinMessages } from '../util/messages.js';
import type { JobSummary } from './types.js';

/** Rows that need a person, one warn line each (file, line, document key, request id): what a log search finds. */
const ROW_LOG_LIMIT = 100;

/** Logs the failed and uncertain rows of a run's files, up to ROW_LOG_LIMIT a file; a journal out of reach is logged. */
export async function logRowsNeedingAttention(
  journalOf: () => Promise<Pick<OperatorJournal, 'failedItems' | 'uncertainItems'>>, log: Logger, summary: JobSummary,
): Promise<void> {
  const files = summary.files.filter((f) => f.fileId !== undefined && f.rows.error + f.rows.uncertain > 0);
  if (files.length === 0) return;
  try {
    const journal = await journalOf();
    for (const f of files) {
      const items = [...await journal.failedItems(f.fileId!, { limit: ROW_LOG_LIMIT }), ...await journal.uncertainItems(f.fileId!, { limit: ROW_LOG_LIMIT })];
      for (const item of items.slice(0, ROW_LOG_LIMIT)) {
        log.warn({
          file: f.name, fileId: f.fileId, line: item.lines[0], lines: item.lines.length > 1 ? item.lines : undefined, key: item.docKey ?? undefined,
          requestId: item.requestId ?? undefined, endpoint: item.endpoint ?? undefined, status: item.status, err: joinMessages(item.messages), hint: item.hint ?? undefined,
        }, item.status === 'uncertain' ? 'row uncertain: check it in the service, then wisbridge resolve' : 'row failed');
      }
      if (f.rows.error + f.rows.uncertain > ROW_LOG_LIMIT) log.warn({ file: f.name, fileId: f.fileId, more: f.rows.error + f.rows.uncertain - ROW_LOG_LIMIT }, 'more rows need attention: see the result file or wisbridge status');
    }
  } catch (error) {
    log.warn({ err: describeError(error) }, 'could not list the rows that need attention');
  }
}
