import type { DropOptionsInput } from './options.js';

/**
 * The drop `wisbridge process` makes of a folder of local files, and the name the journal records for their files.
 * The name says where the files were read and, when `--out` sent the result files elsewhere, where those went
 * (`process:/in → /out`), so a later re-drive or resolution rewrites a result file where the first run wrote it.
 */
const PREFIX = 'process:';
const TO = ' → ';

export function processDropName(folder: string, outbox: string): string {
  return outbox === folder ? `${PREFIX}${folder}` : `${PREFIX}${folder}${TO}${outbox}`;
}

/** The local drop `wisbridge process` reads `folder` through: the one its recorded name stands for. */
export function processDrop(folder: string, outbox: string): DropOptionsInput {
  return processDropOptions(processDropName(folder, outbox))!;
}

/** The local drop a processed file's recorded drop name stands for; undefined for any other name. */
export function processDropOptions(name: string): DropOptionsInput | undefined {
  if (!name.startsWith(PREFIX)) return undefined;
  const [root, outbox = root] = name.slice(PREFIX.length).split(TO);
  return { type: 'local', name, root, inbox: '.', outbox, watchEvents: false };
}
