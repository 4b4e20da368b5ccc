import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { disposeFile, isTemporaryName, StableFileWatcher, type Drop } from '../../src/drops/index.js';
import { isWisbridgeError } from '../../src/errors.js';
import { readAll, type Backing } from './fixtures.js';

export interface DropFixture {
  backing: Backing;
  /** Builds a drop over the backing root; `extra` are further drop options (folder layout, ...). */
  drop(extra?: Record<string, unknown>): Drop;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<Error> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(isWisbridgeError(error) ? error.code : error).toBe(code);
  return error as Error;
}

/** The behaviour every drop must have; written once, run against the local and the SFTP drop. */
export function describeDropBehaviour(label: string, makeFixture: () => Promise<DropFixture>): void {
  describe(`${label} drop behaviour`, () => {
    let fx: DropFixture;
    let drop: Drop;
    const opened: Drop[] = [];
    const open = (extra?: Record<string, unknown>) => { const d = fx.drop(extra); opened.push(d); return d; };

    beforeEach(async () => {
      fx = await makeFixture();
      drop = open();
    });
    afterEach(async () => {
      for (const d of opened.splice(0)) await d.close();
      fx.backing.cleanup();
    });

    it('writes strings, buffers and streams atomically and reads them back', async () => {
      expect(await drop.writeAtomic('outbox', 'a.csv', 'sku;qty\nA;1\n')).toEqual({ name: 'a.csv', size: 12 });
      await drop.writeAtomic('outbox', 'b.csv', Buffer.from([0xef, 0xbb, 0xbf, 0x41]));
      await drop.writeAtomic('outbox', 'c.csv', Readable.from((function* () { for (let i = 0; i < 1000; i += 1) yield Buffer.from(`line ${i}\n`); })()));
      expect(readFileSync(fx.backing.path('outbox/a.csv'), 'utf8')).toBe('sku;qty\nA;1\n');
      expect((await readAll(await drop.openRead('outbox', 'b.csv'))).toString('hex')).toBe('efbbbf41');
      const c = (await readAll(await drop.openRead('outbox', 'c.csv'))).toString();
      expect(c.split('\n')[999]).toBe('line 999');
      expect((await drop.stat('outbox', 'c.csv'))?.size).toBe(Buffer.byteLength(c));
      expect(readdirSync(fx.backing.path('outbox')).sort()).toEqual(['a.csv', 'b.csv', 'c.csv']);
    });

    it('a folder removed while the drop is in use is made again by the next write or move into it', async () => {
      fx.backing.put('inbox/A.csv', 'a\n');
      fx.backing.put('inbox/B.csv', 'b\n');
      await drop.writeAtomic('outbox', 'A.result.csv', 'first\n');
      expect(await drop.move('inbox', 'A.csv', 'archive')).toBe('A.csv');
      // An operator cleans up: both folders go while the bridge runs.
      rmSync(fx.backing.path('outbox'), { recursive: true });
      rmSync(fx.backing.path('archive'), { recursive: true });
      // a stream, which cannot be read twice: the folder is found missing before anything of it is read
      await drop.writeAtomic('outbox', 'B.result.csv', Readable.from([Buffer.from('sec'), Buffer.from('ond\n')]));
      expect(await drop.move('inbox', 'B.csv', 'archive')).toBe('B.csv');
      expect(readFileSync(fx.backing.path('outbox/B.result.csv'), 'utf8')).toBe('second\n');
      expect(readdirSync(fx.backing.path('archive'))).toEqual(['B.csv']);
      // A move whose source is gone still says so, whatever the folder.
      await expectCode(drop.move('inbox', 'A.csv', 'archive'), 'DROP_NOT_FOUND');
    });

    it('a file of several megabytes and an odd size, written from many chunks and from one buffer, comes back byte for byte', async () => {
      const content = Buffer.alloc(3 * 1024 * 1024 + 12_345);
      for (let i = 0; i + 4 <= content.length; i += 4) content.writeUInt32BE(i, i);
      const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      await drop.writeAtomic('outbox', 'chunks.bin', Readable.from((function* () { for (let at = 0; at < content.length; at += 50_000) yield content.subarray(at, at + 50_000); })()));
      await drop.writeAtomic('outbox', 'buffer.bin', content);
      for (const name of ['chunks.bin', 'buffer.bin']) {
        expect(digest(await readAll(await drop.openRead('outbox', name)))).toBe(digest(content));
        expect(digest(readFileSync(fx.backing.path(`outbox/${name}`)))).toBe(digest(content));
      }
    });

    it('never overwrites silently: DROP_EXISTS unless overwrite is requested', async () => {
      await drop.writeAtomic('outbox', 'r.csv', 'first');
      await expectCode(drop.writeAtomic('outbox', 'r.csv', 'second'), 'DROP_EXISTS');
      expect(readFileSync(fx.backing.path('outbox/r.csv'), 'utf8')).toBe('first');
      expect(await drop.writeAtomic('outbox', 'r.csv', 'third!', { overwrite: true })).toEqual({ name: 'r.csv', size: 6 });
      expect(readFileSync(fx.backing.path('outbox/r.csv'), 'utf8')).toBe('third!');
      expect(readdirSync(fx.backing.path('outbox'))).toEqual(['r.csv']);
    });

    it('leaves no file, final or temporary, when the source stream fails', async () => {
      const failing = Readable.from((async function* () { yield Buffer.from('half'); throw new Error('source broke'); })());
      const error = await drop.writeAtomic('outbox', 'f.csv', failing).then(() => undefined, (e: unknown) => e);
      expect(isWisbridgeError(error)).toBe(true);
      expect(await drop.stat('outbox', 'f.csv')).toBeUndefined();
      expect(readdirSync(fx.backing.path('outbox'))).toEqual([]);
    });

    it('lists regular files only, sorted and filtered; a missing folder is DROP_NOT_FOUND', async () => {
      fx.backing.put('inbox/b.csv', 'bb');
      fx.backing.put('inbox/a.csv', 'a');
      fx.backing.put('inbox/notes.txt', 'n');
      fx.backing.mkdir('inbox/sub');
      const all = await drop.list('inbox');
      expect(all.map((e) => e.name)).toEqual(['a.csv', 'b.csv', 'notes.txt']);
      expect(all[1]).toMatchObject({ name: 'b.csv', size: 2 });
      expect(all[1]!.mtimeMs).toBeGreaterThan(Date.parse('2020-01-01'));
      expect((await drop.list('inbox', (n) => n.endsWith('.csv'))).map((e) => e.name)).toEqual(['a.csv', 'b.csv']);
      await expectCode(drop.list('error'), 'DROP_NOT_FOUND');
    });

    it('stat of a missing file is undefined; reading it is DROP_NOT_FOUND; names cannot leave the folder', async () => {
      fx.backing.mkdir('inbox');
      expect(await drop.stat('inbox', 'nope.csv')).toBeUndefined();
      await expectCode(drop.openRead('inbox', 'nope.csv'), 'DROP_NOT_FOUND');
      await expectCode(drop.openRead('inbox', '../outside.csv'), 'DROP_IO');
      await expectCode(drop.writeAtomic('outbox', 'a/b.csv', 'x'), 'DROP_IO');
    });

    it('moves to archive, creating the folder, with a timestamp suffix on collisions', async () => {
      fx.backing.put('inbox/orders.csv', 'one');
      expect(await drop.move('inbox', 'orders.csv', 'archive')).toBe('orders.csv');
      fx.backing.put('inbox/orders.csv', 'two');
      const second = await drop.move('inbox', 'orders.csv', 'archive');
      expect(second).toMatch(/^orders\.\d{8}T\d{9}Z\.csv$/);
      fx.backing.put('inbox/orders.csv', 'three');
      const third = await drop.move('inbox', 'orders.csv', 'archive');
      expect(third).not.toBe(second);
      expect(third).toMatch(/^orders\.\d{8}T\d{9}Z(-\d+)?\.csv$/);
      expect(readFileSync(fx.backing.path('archive/orders.csv'), 'utf8')).toBe('one');
      expect(readFileSync(fx.backing.path(`archive/${second}`), 'utf8')).toBe('two');
      expect(readFileSync(fx.backing.path(`archive/${third}`), 'utf8')).toBe('three');
      expect(existsSync(fx.backing.path('inbox/orders.csv'))).toBe(false);
      await expectCode(drop.move('inbox', 'orders.csv', 'error'), 'DROP_NOT_FOUND');
    });

    it('removes files, reporting whether one was there', async () => {
      fx.backing.put('inbox/x.csv', 'x');
      expect(await drop.remove('inbox', 'x.csv')).toBe(true);
      expect(await drop.remove('inbox', 'x.csv')).toBe(false);
      expect(existsSync(fx.backing.path('inbox/x.csv'))).toBe(false);
    });

    it('uses the configured folder layout, relative or absolute, and makes a missing folder with its parents', async () => {
      const absoluteError = fx.backing.mkdir('elsewhere/failed');
      const custom = open({ inbox: 'wms/out', outbox: 'wms/in', archive: 'done/by/day', error: absoluteError });
      fx.backing.put('wms/out/a.csv', 'a');
      fx.backing.put('wms/out/b.csv', 'b');
      expect((await custom.list('inbox')).map((e) => e.name)).toEqual(['a.csv', 'b.csv']);
      await custom.writeAtomic('outbox', 'result.csv', 'ok');
      expect(readFileSync(fx.backing.path('wms/in/result.csv'), 'utf8')).toBe('ok');
      await custom.move('inbox', 'a.csv', 'archive');
      await custom.move('inbox', 'b.csv', 'error');
      expect(existsSync(fx.backing.path('done/by/day/a.csv'))).toBe(true);
      expect(existsSync(fx.backing.path('elsewhere/failed/b.csv'))).toBe(true);
    });

    it('scanReady ignores temporary names, dot-files and markers; writes are never picked up half-way', async () => {
      for (const name of ['.hidden.csv', 'a.csv.tmp', 'b.csv.part', 'c.csv.filepart', 'D.CSV.TMP', 'lonely.csv.ok', 'good.csv']) {
        fx.backing.put(`inbox/${name}`, 'x');
      }
      const watcher = new StableFileWatcher(drop, { settleMs: 0 });
      expect((await watcher.scanReady()).map((f) => f.name)).toEqual(['good.csv']);
      expect(isTemporaryName('.good.csv.1234-abcd.tmp')).toBe(true);
    });

    it('marker mode: a file is ready only once its marker exists; disposal removes the marker', async () => {
      const watcher = new StableFileWatcher(drop, { stability: 'marker', markerSuffixes: ['.ok', '.done'] });
      fx.backing.put('inbox/stock.csv', 'sku;qty\n');
      fx.backing.put('inbox/other.csv', 'x');
      expect(await watcher.scanReady()).toEqual([]);
      fx.backing.put('inbox/stock.csv.done', '');
      const ready = await watcher.scanReady();
      expect(ready).toHaveLength(1);
      expect(ready[0]).toMatchObject({ name: 'stock.csv', size: 8, marker: 'stock.csv.done' });
      expect(await disposeFile(drop, ready[0]!, 'archive')).toEqual({ name: 'stock.csv', folder: 'archive' });
      expect(readdirSync(fx.backing.path('inbox'))).toEqual(['other.csv']);
      expect(readdirSync(fx.backing.path('archive'))).toEqual(['stock.csv']);
    });

    it('outbox companions: a checksum file and a done marker after the file, replaced in order on a rewrite; other folders get none', async () => {
      const d = open({ outboundChecksum: 'sha256', doneMarker: '.ok' });
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      await d.writeAtomic('outbox', 'w.csv', Readable.from([Buffer.from('a;b\n'), Buffer.from('1;2\n')]));
      expect(readdirSync(fx.backing.path('outbox')).sort()).toEqual(['w.csv', 'w.csv.ok', 'w.csv.sha256']);
      expect(readFileSync(fx.backing.path('outbox/w.csv.sha256'), 'utf8')).toBe(`${sha('a;b\n1;2\n')}  w.csv\n`);
      await expectCode(d.writeAtomic('outbox', 'w.csv', 'again'), 'DROP_EXISTS');
      expect(readFileSync(fx.backing.path('outbox/w.csv.sha256'), 'utf8')).toBe(`${sha('a;b\n1;2\n')}  w.csv\n`);
      await d.writeAtomic('outbox', 'w.csv', 'rewritten\n', { overwrite: true });
      expect(readFileSync(fx.backing.path('outbox/w.csv.sha256'), 'utf8')).toBe(`${sha('rewritten\n')}  w.csv\n`);
      expect(readFileSync(fx.backing.path('outbox/w.csv.ok'), 'utf8')).toBe('');
      await d.writeAtomic('error', 'x.error.txt', 'reason');
      expect(readdirSync(fx.backing.path('error'))).toEqual(['x.error.txt']);
      // A crash between the rename and the companions: they are completed from the file's bytes.
      const md5 = open({ outboundChecksum: 'md5' });
      await drop.writeAtomic('outbox', 'late.csv', 'late\n');
      await md5.completeCompanions!('outbox', 'late.csv');
      expect(readFileSync(fx.backing.path('outbox/late.csv.md5'), 'utf8')).toBe(`${createHash('md5').update('late\n').digest('hex')}  late.csv\n`);
    });

    it('inbound checksum files are never candidates; with require + wait a file is ready once its checksum file is there; it follows the file when disposed', async () => {
      await drop.writeAtomic('inbox', 'in.csv', 'x');
      await drop.writeAtomic('inbox', 'plain.csv', 'y');
      const watcher = new StableFileWatcher(drop, { settleMs: 0, checksumSidecar: 'require' });
      expect((await watcher.scanReady()).map((f) => f.name)).toEqual([]);
      await drop.writeAtomic('inbox', 'in.csv.sha256', `${createHash('sha256').update('x').digest('hex')}  in.csv\n`);
      const ready = await watcher.scanReady();
      expect(ready.map((f) => f.name)).toEqual(['in.csv']);
      expect(ready[0].sidecar).toMatch(/^\d+:\d+/);
      expect(new StableFileWatcher(drop, { settleMs: 0, checksumSidecar: 'off' }).isCandidate('in.csv.sha256')).toBe(true);
      expect((await new StableFileWatcher(drop, { settleMs: 0 }).scanReady()).map((f) => f.name).sort()).toEqual(['in.csv', 'plain.csv']);
      await drop.writeAtomic('archive', 'in.csv', 'older');
      const moved = await disposeFile(drop, ready[0], 'archive', { companions: ['in.csv.sha256'], stampAt: new Date('2026-11-22T03:20:01.123Z') });
      expect(moved.name).toBe('in.20261122T032001123Z.csv');
      expect(readdirSync(fx.backing.path('archive')).sort()).toEqual(['in.20261122T032001123Z.csv', 'in.20261122T032001123Z.csv.sha256', 'in.csv']);
      expect(readdirSync(fx.backing.path('inbox'))).toEqual(['plain.csv']);
    });
  });
}
