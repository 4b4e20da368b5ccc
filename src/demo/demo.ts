import { writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../config/load.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';
import { describeError } from '../errors.js';
import { runExportJob } from '../export/index.js';
import { createLogger, type Logger } from '../log.js';
import { runInboundJob, type FileReport } from '../pipeline/index.js';
import { createRuntime } from '../runtime/runtime.js';
import { formatTable } from '../service/status.js';
import { copySamples, DEMO_TODAY, demoConfig, freshDemoDir } from './setup.js';

export interface DemoOptions {
  dir: string;
  out: NodeJS.WritableStream;
  /** Leave the emulator running (the caller stops it). */
  keepEmulator?: boolean;
}

export interface ExportLine {
  job: string;
  records: number;
  files: string[];
  acknowledged: number;
  ackErrors: number;
  awaiting: number;
  error?: string;
}

export interface DemoResult {
  dir: string;
  config: string;
  exports: ExportLine[];
  files: FileReport[];
  inboundError?: string;
  emulator: RunningEmulator;
  /** 0 every step ran (rows may still have failed: see the table), 1 a step failed as a whole. */
  exitCode: 0 | 1;
}

/** wisbridge demo: emulator in-process, a fresh local drop, an export pass and an inbound pass over the samples. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const dir = resolve(options.dir);
  const out = (text = '') => options.out.write(text + '\n');
  const shown = (p: string) => relative(process.cwd(), p) || '.';
  await freshDemoDir(dir);
  const logFile = join(dir, 'wisbridge.log');
  const logger: Logger = createLogger({ level: 'info', pretty: false, destination: pino.destination({ dest: logFile, sync: true }) as unknown as NodeJS.WritableStream });
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: 1, scale: 'small', today: DEMO_TODAY, logger: logger.child({ component: 'emulator' }) });
  const result: DemoResult = { dir, config: join(dir, 'wisbridge.yaml'), exports: [], files: [], emulator, exitCode: 0 };
  try {
    await writeFile(join(dir, 'token'), emulator.mintToken([1], 24 * 3600) + '\n', { mode: 0o600 });
    await writeFile(result.config, demoConfig(emulator.url));
    out('wisbridge demo: the bridge end to end on this machine (no network but loopback)');
    out(`  emulator  ${emulator.url}  (in this process; seed 1, small data set, today ${DEMO_TODAY})`);
    out(`  folder    ${shown(dir)}/  (wiped and made again on every run)`);
    out(`  config    ${shown(result.config)}`);
    out();

    const loaded = await loadConfig(result.config);
    const runtime = createRuntime(loaded, { logger });
    try {
      const mappings = await runtime.mappings();
      const samples = await copySamples(mappings, join(dir, 'wms', 'inbox'));

      out('1. export pass: the pending work of the service → work-list files in the outbox (acknowledged once the WMS confirms)');
      for (const job of loaded.config.exports) {
        try {
          const s = await runExportJob(runtime, job);
          result.exports.push({
            job: job.name, records: s.exported, files: s.files.map((f) => f.name),
            acknowledged: s.acknowledgements.acknowledged + s.acknowledgements.alreadyAcknowledged, ackErrors: s.acknowledgements.errors + s.acknowledgements.uncertain,
            awaiting: s.awaitingConfirmation,
          });
        } catch (error) {
          result.exports.push({ job: job.name, records: 0, files: [], acknowledged: 0, ackErrors: 0, awaiting: 0, error: describeError(error) });
          result.exitCode = 1;
        }
      }
      out(formatTable(['export', 'records', 'files', 'acknowledged', 'awaiting WMS', 'ack errors', 'work-list file(s) / error'], result.exports.map((e) => [
        e.job, String(e.records), String(e.files.length), String(e.acknowledged), String(e.awaiting), String(e.ackErrors), e.error ? `FAILED: ${e.error}` : e.files.join(', ') || '(no pending work)',
      ]), 70));
      out();

      out(`2. inbound pass: ${samples.length} sample file(s) from samples/ copied to the inbox → requests → a result file per input`);
      for (const job of loaded.config.inbound) {
        try {
          const report = await runInboundJob(runtime, job);
          result.files.push(...report.files);
        } catch (error) {
          result.inboundError = describeError(error);
          result.exitCode = 1;
        }
      }
      const total = { ok: 0, error: 0, skipped: 0, uncertain: 0 };
      for (const f of result.files) for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += f.rows[k];
      const missing = samples.filter((s) => !result.files.some((f) => f.file === s));
      out(formatTable(['file', 'outcome', 'ok', 'error', 'skipped', 'uncertain', 'result file / reason'], [
        ...result.files.map((f) => [f.file, f.outcome, String(f.rows.ok), String(f.rows.error), String(f.rows.skipped), String(f.rows.uncertain),
          f.outcome === 'rejected' ? `${f.movedTo ?? 'error/'}: ${f.reason ?? ''}` : f.resultFile ?? f.reason ?? '']),
        ...missing.map((name) => [name, 'NOT PROCESSED', '', '', '', '', result.inboundError ?? 'still in the inbox']),
        ['total', `${result.files.length} file(s)`, String(total.ok), String(total.error), String(total.skipped), String(total.uncertain), ''],
      ], 70));
      if (result.inboundError) out(`inbound pass FAILED: ${result.inboundError}`);
      out();
      const wms = join(dir, 'wms');
      out('where things are:');
      out(`  work lists    ${shown(join(wms, 'outbox'))}/  (the WMS picks these up)`);
      out(`  result files  ${shown(join(wms, 'outbox'))}/*.result.csv  (one row per input line: ok / error / skipped / uncertain, with the reason)`);
      out(`  processed     ${shown(join(wms, 'archive'))}/   rejected as a whole: ${shown(join(wms, 'error'))}/ (reason in NAME.error.txt)`);
      out(`  journal       ${shown(join(dir, 'journal.sqlite'))}   →  wisbridge status --config ${shown(result.config)}`);
      out(`  log (JSON)    ${shown(logFile)}`);
      if (!options.keepEmulator) {
        out();
        out('next: wisbridge demo --keep-emulator keeps the emulator serving; then, in a second terminal,');
        out(`  wisbridge run --config ${shown(result.config)}   (drop more files into ${shown(join(wms, 'inbox'))}/; metrics on http://127.0.0.1:9464/metrics)`);
      }
      if (total.error + total.uncertain > 0) {
        out();
        out(`${total.error} row(s) failed and ${total.uncertain} are uncertain: the samples include rows with mistakes on purpose,`);
        out('to show how they are reported. The result files say why, row by row. The demo itself succeeded (exit 0).');
      }
    } finally {
      await runtime.close();
    }
  } catch (error) {
    if (!options.keepEmulator) await emulator.close();
    throw error;
  }
  if (!options.keepEmulator) await emulator.close();
  return result;
}
