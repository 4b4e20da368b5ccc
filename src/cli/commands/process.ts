import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { loadConfig } from '../../config/load.js';
import { takesWarehouse } from '../../contract/index.js';
import type { InboundJob } from '../../config/schema.js';
import { createDrop } from '../../drops/create.js';
import { processDrop } from '../../drops/index.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { ApiReferenceIds } from '../../client/index.js';
import type { ReferenceIds } from '../../mapping/index.js';
import { exitCodeOf, pickMapping, processFile, processJobOn, ProgressBar, summaryTable, type FileReport } from '../../pipeline/index.js';
import { createRuntime, type RuntimeParts } from '../../runtime/runtime.js';
import { asInstance } from '../one-shot.js';
import { parseCommandLine } from '../args.js';
import { dryRunFile, dryRunReport, rejectFile, type DryRunLine } from '../dry-run.js';

const HELP = `usage: wisbridge process FILE... --config FILE [--service NAME] [--mapping NAME] [--out DIR] [--dry-run] [--force]

One-off processing of local files through the inbound pipeline: each FILE is mapped (by its name, or --mapping),
claimed in the journal, sent to the service (--service, default: the only one configured) and its result file
NAME.result.csv is written beside it (or to --out DIR). The input file is not moved.
--dry-run maps and validates only: prints what would be sent (one JSON object per line, as wisbridge map does),
claims nothing, sends nothing, writes nothing.
--force processes a file again even when the same content was processed before.
Exit 0 when every row went through, 1 when some rows failed, are uncertain, or a file was rejected, 2 on a fatal error.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, service: { type: 'string' }, mapping: { type: 'string' }, out: { type: 'string' },
    'dry-run': { type: 'boolean' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (!values.config) throw new WisbridgeError('USAGE', 'give --config FILE (see --help)');
  if (positionals.length === 0) throw new WisbridgeError('USAGE', 'give at least one FILE (see --help)');
  for (const file of positionals) {
    if (!existsSync(file) || !statSync(file).isFile()) throw new WisbridgeError('FILE_UNREADABLE', `no such file: ${file}`);
  }
  const loaded = await loadConfig(values.config);
  const services = Object.keys(loaded.config.services);
  const service = values.service ?? (services.length === 1 ? services[0] : undefined);
  if (!service) throw new WisbridgeError('USAGE', `several services are configured: give --service NAME (${services.join(', ')})`);
  loaded.service(service);
  const job = processJobOn('(local)', service);
  const logger = createLogger({ level: loaded.config.log.level });
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const reports: FileReport[] = [];
  const bar = new ProgressBar();
  const dryRun = values['dry-run'] === true;
  // A dry run writes nothing: no instance, so that it also runs beside a `run` on a SQLite journal.
  const runtime = dryRun ? createRuntime(loaded, { logger }) : undefined;
  try {
    if (runtime) {
      for (const file of positionals) {
        if (stop.signal.aborted) break;
        reports.push(await dryRunOne(runtime, job, file, values.mapping));
      }
    } else {
      // SIGINT stops between files (stop.signal), never mid-request: the instance has no hard stop.
      await asInstance(loaded, logger, new AbortController().signal, { besideRunning: 'drop the files into its inbox' }, async (instanceRuntime) => {
        for (const file of positionals) {
          if (stop.signal.aborted) break;
          const dir = dirname(resolve(file));
          const drop = createDrop(processDrop(dir, values.out ? resolve(values.out) : dir, service), logger);
          try {
            reports.push(await processFile(instanceRuntime, job, basename(file), {
              drop, dispose: false, force: values.force, mapping: values.mapping, signal: stop.signal,
              onProgress: (p) => bar.update(p),
            }));
          } finally {
            bar.done();
            await drop.close();
          }
        }
      });
    }
  } catch (error) {
    if (!isWisbridgeError(error)) throw error;
    process.stderr.write(summaryTable(reports) + '\n');
    process.stderr.write(`wisbridge process: ${describeError(error)}\n`);
    return 2;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runtime?.close().catch(() => undefined);
  }
  (dryRun ? process.stderr : process.stdout).write(summaryTable(reports) + '\n');
  return exitCodeOf(reports);
}

/** `--dry-run`: the same mapping run, lines and exit code as `wisbridge map`, with the job's mapping choice and the service's references. */
async function dryRunOne(runtime: RuntimeParts<'mappings' | 'loaded' | 'client'>, job: InboundJob, file: string, forced: string | undefined): Promise<FileReport> {
  const name = basename(file);
  const emit = (line: DryRunLine) => process.stdout.write(JSON.stringify(line) + '\n');
  let mapping;
  try {
    mapping = pickMapping(await runtime.mappings(), job, name, forced);
  } catch (error) {
    return rejectFile(dryRunReport(job.name, name), error, emit);
  }
  const service = runtime.loaded.service(job.service);
  let referenceIds: ReferenceIds | undefined;
  const lazy: ReferenceIds = {
    idsOf: async (kind, keys) => (referenceIds ??= new ApiReferenceIds(await runtime.client(job.service))).idsOf(kind, keys),
  };
  return dryRunFile(async () => createReadStream(file), mapping, {
    job: job.name, file: name, referenceIds: lazy, maxBatchItems: service.batch_size, emit,
    warehouse: takesWarehouse(mapping.document) ? service.warehouse : undefined,
  });
}
