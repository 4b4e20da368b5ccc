import { WisbridgeError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import type { Drop } from './drop.js';
import { openDrop } from './open.js';
import { dropOptionsSchema, type DropOptions, type DropOptionsInput } from './options.js';

/** Validates drop options: CONFIG_INVALID listing every problem by path, never echoing values (secrets). */
export function parseDropOptions(options: DropOptionsInput): DropOptions {
  const parsed = dropOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(drop)'}: ${issue.message}`).join('; ');
    throw new WisbridgeError('CONFIG_INVALID', `drop options are invalid: ${problems}`);
  }
  return parsed.data;
}

/** Builds a drop from (unvalidated) options, their defaults filled in; accepts already parsed options too. */
export function createDrop(options: DropOptionsInput, logger: Logger = silentLogger): Drop {
  return openDrop(parseDropOptions(options), logger);
}
