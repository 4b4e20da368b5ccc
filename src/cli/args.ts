import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WisbridgeError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with strict checking that turns mistakes into USAGE errors (one clear line, no stack). */
export function parseCommandLine<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    const unknown = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && /'(-{1,2}[^'\s]+)'/.exec((error as Error).message)?.[1];
    if (unknown) throw new WisbridgeError('USAGE', unknownOption(unknown, Object.keys(options)));
    throw new WisbridgeError('USAGE', error instanceof Error ? error.message : String(error));
  }
}

/** Node's own text for an unknown option explains `--` for positionals; a mistyped option wants its closest name. */
function unknownOption(given: string, names: readonly string[]): string {
  return `unknown option ${given}${didYouMean(given.replace(/^-+/, '').split('=')[0], names, (name) => `--${name}`)} (--help lists the options)`;
}

export function intOption(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new WisbridgeError('USAGE', `--${name} must be a non-negative integer, got "${value}"`);
  return n;
}
