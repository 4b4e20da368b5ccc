import { assertConfigReady } from '../../config/check.js';
import { loadConfig, type LoadedConfig } from '../../config/load.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import type { ExportSummary } from '../../export/index.js';
import type { FileReport } from '../../pipeline/index.js';
import { runInboundJob } from '../../pipeline/job.js';
import { exitCodeOf, ProgressBar, summaryTable } from '../../pipeline/report.js';
import type { Runtime } from '../../runtime/runtime.js';
import { asInstance } from '../one-shot.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge batch --config FILE [--job NAME]... [--force]

One pass over every configured job, then exit: each inbound job's drop inbox is processed (result files to the
outbox, sources to archive/ or error/), and each export job runs once. Prints a summary table.
Exit 0 when everything went through, 1 when some rows failed or are uncertain (or a file was rejected),
2 on a fatal error (401, an unreachable drop or service, a broken configuration, mapping or missing secret:
everything \`wisbridge config check\` checks must hold before anything is read).
SIGINT / SIGTERM stop between batches (the current file resumes on the next run); a second signal aborts at once.`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, job: { type: 'string', multiple: true }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (!values.config) throw new WisbridgeError('USAGE', 'give --config FILE (see --help)');
  const loaded = await loadConfig(values.config);
  const mappings = await assertConfigReady(values.config);
  const { config } = loaded;
  const wanted = values.job ? new Set(values.job) : undefined;
  const known = [...config.inbound, ...config.exports].map((j) => j.name);
  for (const name of wanted ?? []) if (!known.includes(name)) throw new WisbridgeError('USAGE', `unknown job "${name}" (known: ${known.join(', ')})`);
  const logger = createLogger({ level: config.log.level });
  const graceful = new AbortController();
  const hard = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (graceful.signal.aborted) {
      logger.warn({ signal }, 'second signal: aborting now');
      hard.abort();
    } else {
      logger.warn({ signal }, 'stopping after the current batch');
      graceful.abort();
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const reports: FileReport[] = [];
  const exports: ExportSummary[] = [];
  const bar = new ProgressBar();
  let fatal: unknown;
  try {
    await asInstance(loaded, logger, hard.signal, { mappings, besideRunning: 'it processes its inboxes and runs the exports itself: drop the files there' }, (runtime) =>
      passes(runtime, { config, wanted, force: values.force, signal: graceful.signal, bar, reports, summaries: exports }));
  } catch (error) {
    fatal = error;
  } finally {
    bar.done();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (config.inbound.length > 0) process.stdout.write(summaryTable(reports) + '\n');
  if (exports.length > 0) process.stdout.write(exportTable(exports) + '\n');
  if (fatal !== undefined) {
    if (isWisbridgeError(fatal)) {
      process.stderr.write(`wisbridge batch: ${describeError(fatal)}\n`);
      return 2;
    }
    throw fatal;
  }
  const exportCode = exports.some((e) => e.exitCode !== 0) ? 1 : 0;
  return Math.max(exitCodeOf(reports), exportCode);
}

function exportTable(summaries: readonly ExportSummary[]): string {
  const header = ['export job', 'work type', 'listed', 'exported', 'files', 'acknowledged', 'ack errors', 'ack uncertain', 'awaiting WMS', 'cancelled'];
  const rows = summaries.map((e) => [
    e.job, e.workType, String(e.listed), String(e.exported), e.files.map((f) => f.name).join(' ') || '-',
    String(e.acknowledgements.acknowledged), String(e.acknowledgements.errors), String(e.acknowledgements.uncertain),
    String(e.awaitingConfirmation), String(e.cancelled),
  ]);
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return ['', fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n');
}

interface Passes {
  config: LoadedConfig['config'];
  wanted: ReadonlySet<string> | undefined;
  force: boolean | undefined;
  signal: AbortSignal;
  bar: ProgressBar;
  /** Filled as the files and exports finish: what the tables print, also after a fatal error. */
  reports: FileReport[];
  summaries: ExportSummary[];
}

/** Each inbound job's inbox once, then each export job once. */
async function passes(runtime: Runtime, p: Passes): Promise<void> {
  for (const job of p.config.inbound) {
    if (p.wanted && !p.wanted.has(job.name)) continue;
    if (p.signal.aborted) break;
    await runInboundJob(runtime, job, {
      signal: p.signal, force: p.force,
      onProgress: (progress) => p.bar.update(progress),
      onFile: (r) => {
        p.bar.done();
        p.reports.push(r);
      },
    });
  }
  const exportJobs = p.config.exports.filter((job) => !p.wanted || p.wanted.has(job.name));
  if (exportJobs.length === 0) return;
  // Loaded only for export jobs to run: a pass of inbound jobs alone starts without the export flow.
  const { runExportJob } = await import('../../export/index.js');
  for (const job of exportJobs) {
    if (p.signal.aborted) break;
    p.summaries.push(await runExportJob(runtime, job, { signal: p.signal }));
  }
}
