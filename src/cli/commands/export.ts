import { loadConfig } from '../../config/load.js';
import type { ExportJob } from '../../config/schema.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../../errors.js';
import { parseWorkType, runExportJob, WORK_TYPE_ARGUMENTS, type ExportSummary } from '../../export/index.js';
import { createLogger } from '../../log.js';
import { asInstance } from '../one-shot.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge export [TYPE] --config FILE [--job NAME] [--json]

Runs one export pass of the configured export jobs of TYPE (${WORK_TYPE_ARGUMENTS.slice(0, 3).join(', ')},
${WORK_TYPE_ARGUMENTS.slice(3).join(', ')}), or of the job --job NAME.
Writes work lists to the drop's outbox, acknowledges them per the job's policy, exports cancellations.
Prints one summary per job (--json: one JSON line each).
Exit: 0 all good, 1 some acknowledgements were refused or stayed uncertain, 2 fatal error.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, job: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (positionals.length > 1) throw new WisbridgeError('USAGE', `unexpected arguments: ${positionals.slice(1).join(' ')}\n${HELP}`);
  if (positionals.length === 0 && values.job === undefined) throw new WisbridgeError('USAGE', `give a work type or --job NAME\n${HELP}`);
  const type = positionals[0] === undefined ? undefined : parseWorkType(positionals[0]);
  if (positionals[0] !== undefined && type === undefined) {
    throw new WisbridgeError('USAGE', `unknown work type "${positionals[0]}"${didYouMean(positionals[0], WORK_TYPE_ARGUMENTS, (name) => name)}\n${HELP}`);
  }
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  const jobs = loaded.config.exports.filter((j) => (type === undefined || j.work_type === type) && (values.job === undefined || j.name === values.job));
  if (jobs.length === 0) {
    const known = loaded.config.exports.map((j) => `${j.name} (${j.work_type})`).join(', ') || 'none';
    throw new WisbridgeError('USAGE', `no export job matches${type ? ` type ${type}` : ''}${values.job ? ` name "${values.job}"` : ''} (configured: ${known})`);
  }

  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const logger = createLogger({ level: loaded.config.log.level });
  let exit = 0;
  try {
    await asInstance(loaded, logger, abort.signal, { besideRunning: 'it runs the export jobs on their schedules' }, async (runtime) => {
      for (const job of jobs) {
        if (abort.signal.aborted) {
          exit = 2;
          return;
        }
        try {
          const summary = await runExportJob(runtime, job, { signal: abort.signal });
          process.stdout.write((values.json ? JSON.stringify(summary) : describe(job, summary)) + '\n');
          exit = Math.max(exit, summary.exitCode);
        } catch (error) {
          if (!isWisbridgeError(error)) throw error;
          process.stderr.write(`wisbridge export: job ${job.name}: ${describeError(error)}\n`);
          exit = 2;
        }
      }
    });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return exit;
}

function describe(job: ExportJob, s: ExportSummary): string {
  const a = s.acknowledgements;
  const lines = [
    `${job.name} (${job.work_type}): ${s.exported} exported in ${s.files.filter((f) => f.kind === 'work').length} file(s), ` +
      `${s.listed} listed, ${s.skipped} skipped${s.fullExport === undefined ? '' : s.fullExport ? ', full export' : ', incremental'}`,
  ];
  if (job.work_type !== 'products') {
    lines.push(`  acknowledged ${a.acknowledged}, already acknowledged ${a.alreadyAcknowledged}, refused ${a.errors}, uncertain ${a.uncertain}, ` +
      `awaiting confirmation ${s.awaitingConfirmation}, cancelled ${s.cancelled}`);
  }
  if (s.recovered.markedWritten + s.recovered.abandoned > 0) {
    lines.push(`  after an interruption: ${s.recovered.markedWritten} record(s) found written, ${s.recovered.abandoned} freed for export again`);
  }
  for (const f of s.files) lines.push(`  ${f.kind === 'work' ? 'work list' : 'cancellations'}: ${f.name} (${f.records} records, ${f.bytes} bytes)`);
  for (const r of s.unwritable) lines.push(`  left out, stays pending: record ${r.id} (${r.number}): ${r.reason}`);
  for (const r of a.resultFiles) lines.push(`  result: ${r}`);
  return lines.join('\n');
}
