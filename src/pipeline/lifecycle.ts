import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config, InboundJob } from '../config/schema.js';
import { processDropOptions, processDropService, type Drop, type FolderRole } from '../drops/index.js';
import { WisbridgeError } from '../errors.js';
import type { FileRecord, InboundJournal, ResultReads } from '../journal/index.js';
import type { FileConcluded, RuntimeParts } from '../runtime/runtime.js';
import type { FileLife } from './file-life.js';
import { resultStream, type ResultRowOverride, type ResultRowWatch } from './result-file.js';
import { emptyRowCounts, type RowCounts } from './types.js';

/*
 * What happens to a claimed file once its requests are answered, whoever answered them: the first pass, a re-drive
 * (`wisbridge retry`, the console), a resolution of uncertain rows (`wisbridge resolve`, the console). The file's
 * status is recorded, its result file is written under the one name the journal recorded for it, and whoever listens
 * hears of it. No other module names or writes a result file: a result file is only ever replaced by one of the
 * same journal file, never by another file's that came under the same input name.
 */

type LifecycleJournal = Pick<InboundJournal, 'recordResultName' | 'finishFile'> & ResultReads;


/** The result file's name the journal recorded for the file; none yet when it was rejected whole or is being processed. */
export function recordedResultName(file: Pick<FileRecord, 'fileId' | 'name' | 'resultName'>): string {
  if (file.resultName === null) throw new WisbridgeError('JOURNAL_STATE', `file ${file.fileId} (${file.name}) has no result file`, { details: { fileId: file.fileId } });
  return file.resultName;
}

/**
 * The file's result name: the recorded one (`file` as read since the file was last claimed or taken), or, the first
 * time, `choose()`'s, recorded before anything is written so that a crash in between rewrites that name rather than
 * picking a new one.
 */
export async function settleResultName(journal: LifecycleJournal, file: Pick<FileRecord, 'fileId' | 'resultName'>, choose: () => Promise<string>): Promise<string> {
  if (file.resultName !== null) return file.resultName;
  const name = await choose();
  await journal.recordResultName(file.fileId, name);
  return name;
}

/**
 * Writes a file's result file from the journal under `name` (atomically, replacing the previous version of the same
 * file's result). `counts` are complete once written.
 */
export async function writeResultFile(
  journal: ResultReads, drop: Drop, folder: FolderRole, fileId: number, name: string,
  options: { override?: ResultRowOverride; rows?: Buffer | Readable; counts?: RowCounts; watch?: ResultRowWatch } = {},
): Promise<RowCounts> {
  const counts = options.counts ?? emptyRowCounts();
  const rows = options.rows ?? resultStream(journal, fileId, options.override, counts, options.watch);
  await drop.writeAtomic(folder, name, rows, { overwrite: true });
  return counts;
}

type JobConfig = Pick<Config, 'drops' | 'inbound' | 'services'>;

/**
 * The inbound job a journal file came through: the job reading its drop (and allowed its mapping), or for a file
 * `wisbridge process` read, a job of its own folders and the configuration's one service.
 */
export function jobOfFile(config: JobConfig, file: Pick<FileRecord, 'fileId' | 'name' | 'drop' | 'mapping'>): InboundJob {
  const job = findJobOfFile(config, file);
  if (job) return job;
  if (processDropOptions(file.drop)) {
    const service = processDropService(file.drop);
    if (service !== undefined) {
      throw new WisbridgeError('CONFIG_INVALID', `file ${file.fileId} (${file.name}) was sent by wisbridge process to service "${service}", which the configuration does not have (it has ${Object.keys(config.services).join(', ')})`);
    }
    throw new WisbridgeError('CONFIG_INVALID', `file ${file.fileId} (${file.name}) was read by wisbridge process, which records no service, and the `
      + `configuration has ${Object.keys(config.services).length} services: give it only the service the file was sent to (a configuration of its own)`);
  }
  throw new WisbridgeError('CONFIG_INVALID', `no inbound job reads drop "${file.drop}" of file ${file.fileId} (${file.name})`);
}

/** The inbound job of a journal file, or undefined when the configuration has none reading its drop any more. */
export function findJobOfFile(config: JobConfig, file: Pick<FileRecord, 'drop' | 'mapping'>): InboundJob | undefined {
  const dropKeys = Object.entries(config.drops).filter(([key, d]) => (d.name ?? key) === file.drop).map(([key]) => key);
  return config.inbound.find((j) => dropKeys.includes(j.drop) && (!j.mappings || j.mappings.includes(file.mapping)))
    ?? config.inbound.find((j) => dropKeys.includes(j.drop))
    ?? processJob(config, file.drop);
}

/**
 * The job `wisbridge process` ran a file through, on the drop its recorded name stands for: the service the name
 * records, or for a name that records none, the configuration's one service.
 */
function processJob(config: JobConfig, drop: string): InboundJob | undefined {
  if (!processDropOptions(drop)) return undefined;
  const recorded = processDropService(drop);
  if (recorded !== undefined) return Object.hasOwn(config.services, recorded) ? processJobOn(drop, recorded) : undefined;
  const services = Object.keys(config.services);
  return services.length === 1 ? processJobOn(drop, services[0]) : undefined;
}

/** Where a file's result file is, as an operator finds it: its drop's outbox, or the folder `wisbridge process` wrote it to. */
function resultLocation(drop: string, name: string): string {
  const local = processDropOptions(drop);
  return local ? join(local.outbox as string, name) : `outbox/${name}`;
}

/** The one-off job of `wisbridge process`: a file at a time, never watched, never expected. */
export const processJobOn = (drop: string, service: string): InboundJob => ({ name: 'process', drop, service, watch: false, files_in_flight: 1, expect: [] });

/** What concluding a file again uses of the journal: its status, its recorded result name, its rows. */
export type ConcludingJournal = Pick<InboundJournal, 'finishFile'> & ResultReads;

/**
 * After an operator's action changed a finished file's rows (re-drive, resolution): records its status (`finish`:
 * a re-drive leaves it processing until this point: `life` decides), rewrites its result file in its job's outbox under
 * the recorded name (`life` commits), and tells whoever listens. The file itself left its inbox on the first pass and stays where it went.
 */
export async function concludeAgain(
  runtime: RuntimeParts<'drop' | 'loaded' | 'onFileConcluded', ConcludingJournal>, fileId: number, via: FileConcluded['via'], options: { finish: boolean; life: FileLife },
): Promise<FileConcluded> {
  const journal = await runtime.journal();
  const status = options.finish ? await journal.finishFile(fileId) : (await journal.getFile(fileId)).status;
  options.life.decide();
  const file = await journal.getFile(fileId);
  const job = jobOfFile(runtime.loaded.config, file);
  const resultFile = recordedResultName(file);
  await writeResultFile(journal, await runtime.drop(job.drop), 'outbox', fileId, resultFile);
  const concluded: FileConcluded = { fileId, name: file.name, job: job.name, via, status, resultFile, resultAt: resultLocation(file.drop, resultFile) };
  options.life.commit(undefined);
  runtime.onFileConcluded?.(concluded);
  return concluded;
}

/** The result file of a journal file as it stands in its outbox, or rebuilt from the journal when it is not there. */
export async function openResultFile(runtime: RuntimeParts<'drop' | 'loaded', ResultReads>, fileId: number): Promise<{ name: string; stream: Readable; from: 'outbox' | 'journal' }> {
  const journal = await runtime.journal();
  const file = await journal.getFile(fileId);
  const name = recordedResultName(file);
  try {
    const drop = await runtime.drop(jobOfFile(runtime.loaded.config, file).drop);
    if (await drop.stat('outbox', name)) return { name, stream: await drop.openRead('outbox', name), from: 'outbox' };
  } catch (error) {
    if (!(error instanceof WisbridgeError)) throw error;
  }
  return { name, stream: resultStream(journal, fileId), from: 'journal' };
}

export type { LifecycleJournal };
