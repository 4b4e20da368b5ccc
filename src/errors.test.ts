import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, WisbridgeError, describeError, isWisbridgeError } from './errors.js';

describe('error codes', () => {
  it('every code is documented in docs/errors.md, and the catalogue names no unknown code', async () => {
    const doc = await readFile(join(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('describes typed errors as "CODE: message" and keeps the code', () => {
    const error = new WisbridgeError('DROP_AUTH', 'the SFTP server refused user wms', { details: { drop: 'wms' } });
    expect(isWisbridgeError(error, 'DROP_AUTH')).toBe(true);
    expect(isWisbridgeError(error, 'DROP_IO')).toBe(false);
    expect(describeError(error)).toBe('DROP_AUTH: the SFTP server refused user wms');
    expect(describeError(new Error('plain'))).toBe('plain');
  });
});
