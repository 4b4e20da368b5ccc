import type { DropOptionsInput } from './options.js';

/**
 * The drop `wisbridge process` makes of a folder of local files, and the name the journal records for their files.
 * The name says which service the files were sent to, where they were read and, when `--out` sent the result files
 * elsewhere, where those went (`process@wis:/in → /out`), so a later re-drive or resolution sends through the same
 * service and rewrites a result file where the first run wrote it. Names recorded before the service was part of
 * them (`process:/in`) stand for the configuration's one service.
 */
const NAME = /^process(?:@([^:]*))?:/;
const TO = ' → ';

export function processDropName(folder: string, outbox: string, service?: string): string {
  // Encoded, a service name holds no ':' that would end the prefix early.
  const prefix = service === undefined ? 'process:' : `process@${encodeURIComponent(service)}:`;
  return outbox === folder ? `${prefix}${folder}` : `${prefix}${folder}${TO}${outbox}`;
}

/** The local drop `wisbridge process` reads `folder` through: the one its recorded name stands for. */
export function processDrop(folder: string, outbox: string, service?: string): DropOptionsInput {
  return processDropOptions(processDropName(folder, outbox, service))!;
}

/** The local drop a processed file's recorded drop name stands for; undefined for any other name. */
export function processDropOptions(name: string): DropOptionsInput | undefined {
  const prefix = NAME.exec(name);
  if (!prefix) return undefined;
  const [root, outbox = root] = name.slice(prefix[0].length).split(TO);
  return { type: 'local', name, root, inbox: '.', outbox, watchEvents: false };
}

/** The service a processed file's recorded drop name says its rows were sent to; undefined when it says none. */
export function processDropService(name: string): string | undefined {
  const service = NAME.exec(name)?.[1];
  return service === undefined ? undefined : decodeURIComponent(service);
}
