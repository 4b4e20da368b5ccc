import { WisbridgeError } from '../errors.js';
import type { FileStatus, OperatorJournal, StoredItem, Resolution } from '../journal/index.js';
import { FileLife } from './file-life.js';
import { concludeAgain, type ConcludingJournal } from './lifecycle.js';
import type { FileConcluded, RuntimeParts } from '../runtime/runtime.js';
import { findFile } from './redrive.js';

export interface ResolveReport {
  fileId: number;
  name: string;
  resolved: number;
  status: FileStatus;
  resultFile?: string;
  /** Where the result file was rewritten (FileConcluded.resultAt). */
  resultAt?: string;
}

/** What a resolution uses of the journal: finding the file, its uncertain items, marking them, concluding it. */
export type ResolveJournal = Pick<OperatorJournal, 'latestFileNamed' | 'fileEventsNamed' | 'uncertainItems' | 'resolveUncertain'> & ConcludingJournal;

/** wisbridge resolve: marks uncertain rows of a file (all, or those covering the given lines) applied or not applied. */
export async function resolveRows(
  runtime: RuntimeParts<'logger' | 'loaded' | 'drop' | 'onFileConcluded', ResolveJournal>,
  ref: string, options: { lines?: number[]; resolution: Resolution; note: string; by: string },
): Promise<ResolveReport> {
  const journal = await runtime.journal();
  const file = await findFile(journal, ref);
  const uncertain = await journal.uncertainItems(file.fileId, { limit: 1_000_000 });
  let items: StoredItem[] = uncertain;
  if (options.lines) {
    const wanted = new Set(options.lines);
    items = uncertain.filter((i) => i.lines.some((l) => wanted.has(l)));
    const covered = new Set(items.flatMap((i) => i.lines));
    const missing = options.lines.filter((l) => !covered.has(l));
    if (missing.length > 0) {
      throw new WisbridgeError('USAGE', `file ${file.fileId} (${file.name}): line(s) ${missing.slice(0, 20).join(', ')} are not uncertain` +
        ` (uncertain lines: ${[...new Set(uncertain.flatMap((i) => i.lines))].slice(0, 50).join(', ') || 'none'})`);
    }
  }
  if (items.length === 0) throw new WisbridgeError('USAGE', `file ${file.fileId} (${file.name}) has no uncertain rows`);
  // The operator's resolution takes the file (begin); the resolution stays recorded when the result file cannot be written.
  const life = new FileLife(file.name);
  life.begin();
  const result = await journal.resolveUncertain({ itemIds: items.map((i) => i.itemId) }, { resolution: options.resolution, note: options.note, by: options.by });
  runtime.logger.info({ fileId: file.fileId, file: file.name, items: result.resolved, resolution: options.resolution, by: options.by }, 'uncertain rows resolved');
  let concluded: FileConcluded;
  try {
    concluded = await concludeAgain(runtime, file.fileId, 'resolve', { finish: false, life });
  } catch (error) {
    if (life.ending === undefined) life.rollback(undefined);
    throw error;
  }
  return { fileId: file.fileId, name: file.name, resolved: result.resolved, status: concluded.status, resultFile: concluded.resultFile, resultAt: concluded.resultAt };
}
