import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, WisbridgeError, callOutcomeOf, describeError, isWisbridgeError, writeStopOf } from './errors.js';

describe('error codes', () => {
  it('every code is documented in docs/errors.md, and the catalogue names no unknown code', async () => {
    const doc = await readFile(join(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('describes typed errors as "CODE: message" and keeps the code', () => {
    const error = new WisbridgeError('DROP_AUTH', 'the SFTP server refused user wms', { details: { drop: 'wms' } });
    expect(isWisbridgeError(error, 'DROP_AUTH')).toBe(true);
    expect(isWisbridgeError(error, 'DROP_IO')).toBe(false);
    expect(describeError(error)).toBe('DROP_AUTH: the SFTP server refused user wms');
    expect(describeError(new Error('plain'))).toBe('plain');
  });

  it('checking the code narrows the details to that code\'s fields', () => {
    const thrown: unknown = new WisbridgeError('LEASE_LOST', 'file 7: another instance holds its lease', { details: { fileId: 7 } });
    expect(isWisbridgeError(thrown, 'LEASE_LOST') ? thrown.details?.fileId : undefined).toBe(7);
    const refused: unknown = new WisbridgeError('JOURNAL_STATE', 'records already exported: 4, 9', { details: { ids: [4, 9] } });
    const details = isWisbridgeError(refused) && refused.code === 'JOURNAL_STATE' ? refused.details : undefined;
    expect(details !== undefined && 'ids' in details ? details.ids : undefined).toEqual([4, 9]);
  });

  it('reads a stopped write and a call\'s outcome from any code, and nothing from other errors', () => {
    const failed = new WisbridgeError('UNAVAILABLE', 'down', { details: { endpoint: 'inventory.adjustments', outcome: 'not-applied', attempts: 3 } });
    expect(callOutcomeOf(failed)).toBe('not-applied');
    expect(writeStopOf(failed)).toBeUndefined();
    const outcomes = [{ key: 5, index: 0, ok: true, errors: [], returned: {} }];
    const stopped = new WisbridgeError('LEASE_LOST', 'lost', { details: { outcomes, notSent: [1, 2] } });
    expect(writeStopOf(stopped)).toEqual({ outcomes, notSent: [1, 2] });
    expect(callOutcomeOf(stopped)).toBeUndefined();
    expect(writeStopOf(new Error('plain'))).toBeUndefined();
    expect(callOutcomeOf(new WisbridgeError('USAGE', 'no details'))).toBeUndefined();
  });
});
