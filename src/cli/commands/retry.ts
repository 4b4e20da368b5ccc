import { loadConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { recordedCli } from '../../console/index.js';
import { redriveFile } from '../../pipeline/index.js';
import { parseCommandLine } from '../args.js';
import { asInstance, RE_DRIVE } from '../one-shot.js';
import { operatorName } from './resolve.js';

const HELP = `usage: wisbridge retry [--config FILE] --file NAME|ID

Sends the failed rows of a file again, once their cause is fixed (wrong SKU created, stock booked...).
Rows that succeeded, rows the mapping rejected, and uncertain rows are never sent again (resolve
uncertain rows first with wisbridge resolve). The result file in the outbox is rewritten. A re-drive a crash
stopped is taken up: what it left in flight is reconciled first. It runs as a short-lived instance: a file
another instance works on or is finishing is refused (exit 2); a SQLite journal that a running instance
uses is refused (re-drive from its console).
Exit codes: 0 every row of the file is now ok or skipped, 1 some rows still failed or are uncertain, 2 error.`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { config: { type: 'string', short: 'c' }, file: { type: 'string', short: 'f' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const ref = values.file;
  if (!ref) throw new WisbridgeError('USAGE', `--file NAME|ID is required\n\n${HELP}`);
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const r = await asInstance(loaded, createLogger({ level: loaded.config.log.level }), controller.signal, RE_DRIVE, (runtime) =>
      recordedCli(runtime, { action: 'redrive', target: ref, actor: operatorName() }, () => redriveFile(runtime, ref),
      (r) => `re-drive ${r.attempt - 1}: ${r.sent} row(s) sent again, ${r.ok} ok, ${r.error} error, ${r.uncertain} uncertain; file is now ${r.status}`));
    process.stdout.write(
      `file ${r.fileId} ${r.name}: re-drive ${r.attempt - 1}, ${r.sent} row(s) sent again: ${r.ok} ok, ${r.error} error, ${r.uncertain} uncertain\n` +
      `file is now ${r.status}; result file rewritten: ${r.resultAt}\n`,
    );
    return r.status === 'done' ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
