import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { configPath, type LoadedConfig } from '../config/load.js';
import { describeError } from '../errors.js';

// Errors of the drops and the journal name the absolute folders they failed on, which helps in the bridge's log but
// tells a console user how the machine is laid out: the console shows them relative to their drop.

const ROLES = ['inbox', 'outbox', 'archive', 'error'] as const;

/** Each absolute folder an error may name, longest first, and how the console shows it. */
function knownFolders(loaded: LoadedConfig): Array<[absolute: string, shown: string]> {
  const folders: Array<[string, string]> = [];
  for (const drop of Object.values(loaded.config.drops)) {
    if (drop.type !== 'local') continue;
    const root = configPath(loaded.file, drop.root);
    for (const role of ROLES) folders.push([isAbsolute(drop[role]) ? drop[role] : join(root, drop[role]), role]);
    folders.push([root, '.']);
  }
  folders.push([dirname(resolve(loaded.file)), '.']);
  return folders.filter(([folder]) => folder.length > 1).sort((a, b) => b[0].length - a[0].length);
}

/** `text` with every known absolute folder replaced by its drop-relative name (`error/x.csv`, not `/srv/…/error/x.csv`). */
export function dropRelative(text: string, loaded: LoadedConfig): string {
  let shown = text;
  for (const [folder, name] of knownFolders(loaded)) {
    if (!shown.includes(folder)) continue;
    shown = shown.split(folder + sep).join(name === '.' ? '' : `${name}/`).split(folder).join(name);
  }
  return shown;
}

/** An error as the console shows it: its description, without absolute folders. */
export function describeForConsole(error: unknown, loaded: LoadedConfig): string {
  return dropRelative(describeError(error), loaded);
}
