import { z } from 'zod';

/** A secret in the configuration: by reference only, so the file itself never holds one. */
export const secretRefSchema = z
  .union([
    z.strictObject({ env: z.string().min(1).describe('name of an environment variable holding the secret') }),
    z.strictObject({ file: z.string().min(1).describe('path of a file holding the secret (relative to the config file)') }),
  ], { error: (issue) => (typeof issue.input === 'string'
    ? 'a secret goes by reference, never inline: `{ env: NAME }` (an environment variable) or `{ file: PATH }` (a file holding it)'
    : 'expected a secret reference: `{ env: NAME }` or `{ file: PATH }`') })
  .describe('A secret, by reference only: `{ env: NAME }` or `{ file: PATH }`.');
