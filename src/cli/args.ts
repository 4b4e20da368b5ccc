import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WisbridgeError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with strict checking that turns mistakes into USAGE errors (one clear line, no stack). */
export function parseCommandLine<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    throw new WisbridgeError('USAGE', error instanceof Error ? error.message : String(error));
  }
}

export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new WisbridgeError('USAGE', `--${name} must be a non-negative integer, got "${value}"`);
  return n;
}
