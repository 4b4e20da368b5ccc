import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { assertPlainName, collisionName, fitName, isTemporaryName, NAME_MAX_BYTES, temporaryNameFor } from './drop.js';
import { dropOptionsSchema, localDropOptionsSchema, sftpDropOptionsSchema } from './options.js';
import { renderOptionsTables } from './options-doc.js';
import { StableFileWatcher } from './watcher.js';
import { LocalDrop } from './local.js';
import { isWisbridgeError } from '../errors.js';
import { parseSidecar } from './checksum.js';

describe('file names', () => {
  it('recognises temporary upload names and dot-files', () => {
    for (const name of ['.x.csv', 'a.tmp', 'a.csv.TMP', 'a.part', 'a.filepart', temporaryNameFor('orders.csv')]) {
      expect(isTemporaryName(name), name).toBe(true);
    }
    for (const name of ['orders.csv', 'tmp.csv', 'partial.csv', 'a.csv.ok']) expect(isTemporaryName(name), name).toBe(false);
  });

  it('adds a sortable UTC timestamp before the extension on collisions', () => {
    const at = new Date('2026-11-22T03:20:01.123Z');
    expect(collisionName('orders.csv', at, 1)).toBe('orders.20261122T032001123Z.csv');
    expect(collisionName('orders.csv', at, 3)).toBe('orders.20261122T032001123Z-2.csv');
    expect(collisionName('README', at, 1)).toBe('README.20261122T032001123Z');
    expect(collisionName('.profile', at, 1)).toBe('.profile.20261122T032001123Z');
  });

  it('rejects names that are not a plain file name', () => {
    for (const name of ['', '.', '..', 'a/b', '../x', 'a\0b']) {
      let error: unknown;
      try { assertPlainName('d', name); } catch (e) { error = e; }
      expect(isWisbridgeError(error, 'DROP_IO'), JSON.stringify(name)).toBe(true);
    }
    expect(() => assertPlainName('d', 'orders 2026.csv')).not.toThrow();
    expect(() => assertPlainName('d', 'orders\\2026.csv')).not.toThrow(); // a backslash is a POSIX name's own byte
  });

  it('derived names never pass the 255-byte limit, and two long names cut alike stay apart', () => {
    const long = `${'ä'.repeat(125)}x.csv`; // 255 bytes
    for (const derived of [temporaryNameFor(long), collisionName(long, new Date(), 3), fitName(long, '.error.txt')]) {
      expect(Buffer.byteLength(derived)).toBeLessThanOrEqual(NAME_MAX_BYTES);
    }
    expect(fitName(long, '.error.txt')).toMatch(/~[0-9a-f]{8}\.error\.txt$/);
    expect(fitName(`${long}1`, '.error.txt')).not.toBe(fitName(`${long}2`, '.error.txt'));
    expect(fitName('short.csv', '.error.txt')).toBe('short.csv.error.txt');
  });

  it('the watcher never treats markers or temporary files as candidates, and honours the pattern', () => {
    const watcher = new StableFileWatcher(new LocalDrop(localDropOptionsSchema.parse({ type: 'local', root: '/tmp' })), { pattern: '\\.csv$', markerSuffixes: ['.ready'] });
    expect(watcher.isCandidate('orders.CSV')).toBe(true);
    expect(watcher.isCandidate('orders.csv.ready')).toBe(false);
    expect(watcher.isCandidate('orders.txt')).toBe(false);
    expect(watcher.isCandidate('.orders.csv')).toBe(false);
  });
});

describe('drop options', () => {
  it('fills every default', () => {
    const local = localDropOptionsSchema.parse({ type: 'local', root: '/srv/wms' });
    expect(local).toMatchObject({ inbox: 'inbox', outbox: 'outbox', archive: 'archive', error: 'error', stability: 'settle', settleMs: 2000, markerSuffixes: ['.ok', '.done'], pollIntervalMs: 5000, watchEvents: true, fsync: true });
    const sftp = sftpDropOptionsSchema.parse({ type: 'sftp', host: 'h', username: 'u', password: 'p', hostKeyFingerprint: `SHA256:${'a'.repeat(43)}` });
    expect(sftp).toMatchObject({ port: 22, root: '.', insecureAcceptAnyHostKey: false, operationTimeoutMs: 30000, reconnectAttempts: 5, posixRename: 'auto' });
  });

  it('discriminates on type and requires credentials for SFTP', () => {
    expect(dropOptionsSchema.safeParse({ type: 'ftp', root: '/x' }).success).toBe(false);
    const noCredentials = dropOptionsSchema.safeParse({ type: 'sftp', host: 'h', username: 'u' });
    expect(noCredentials.success).toBe(false);
    expect(noCredentials.error!.issues.map((i) => i.message)).toContain('one of password, privateKey or privateKeyPath is required');
    expect(dropOptionsSchema.safeParse({ type: 'local', root: '/x', unknownOption: 1 }).success).toBe(false);
    const badPattern = dropOptionsSchema.safeParse({ type: 'local', root: '/x', pattern: '([a-z' });
    expect(badPattern.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['pattern', 'is not a valid regular expression']]);
    let error: unknown;
    try { new StableFileWatcher(new LocalDrop(localDropOptionsSchema.parse({ type: 'local', root: '/tmp' })), { pattern: '([a-z' }); } catch (e) { error = e; }
    expect(isWisbridgeError(error, 'CONFIG_INVALID')).toBe(true);
  });

  it('docs/drops.md carries the options tables generated from the schemas', () => {
    const doc = readFileSync(new URL('../../docs/drops.md', import.meta.url), 'utf8');
    expect(doc).toContain(renderOptionsTables());
  });
});

describe('checksum files', () => {
  const sha = 'a'.repeat(64);
  it('reads sha256sum, md5sum and BSD lines, for the file they name', () => {
    expect(parseSidecar(`${sha.toUpperCase()}\n`, 'x.csv', 'sha256')).toEqual({ digest: sha });
    expect(parseSidecar(`\uFEFF${'b'.repeat(64)}  other.csv\r\n${sha} *x.csv\r\n`, 'x.csv', 'sha256')).toEqual({ digest: sha });
    expect(parseSidecar(`MD5 (x.csv) = ${'c'.repeat(32)}`, 'x.csv', 'md5')).toEqual({ digest: 'c'.repeat(32) });
  });
  it('says why a checksum file holds nothing usable', () => {
    expect(parseSidecar('\n', 'x.csv', 'sha256')).toEqual({ problem: 'is empty' });
    expect(parseSidecar(`${'c'.repeat(32)}  x.csv`, 'x.csv', 'sha256')).toEqual({ problem: 'holds no sha256 digest for x.csv (expected "<64 hex digits>  x.csv")' });
    expect(parseSidecar(`${sha}  y.csv`, 'x.csv', 'sha256')).toMatchObject({ problem: expect.stringContaining('no sha256 digest for x.csv') });
  });
});
