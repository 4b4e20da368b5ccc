import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDrop } from '../../src/drops/create.js';
import type { Drop } from '../../src/drops/index.js';
import { isWisbridgeError } from '../../src/errors.js';
import { HELD_BELOW, takeSnapshot } from '../../src/pipeline/source.js';
import { HeldBytes } from '../../src/util/held-bytes.js';

/**
 * The bytes a file's flow reads after its claim (takeSnapshot): a small file's held in memory, a bigger one's in a
 * private copy; either way the bytes the checksum was taken of, also as a file when a thread or an unpacker needs one.
 */
let root: string;
let drop: Drop;
let privateDir: string;
afterEach(async () => {
  await drop?.close();
  rmSync(root, { recursive: true, force: true });
});

function setUp(): void {
  root = mkdtempSync(join(tmpdir(), 'wb-snapshot-'));
  mkdirSync(join(root, 'inbox'));
  drop = createDrop({ type: 'local', root });
  privateDir = join(root, 'private');
}

function put(name: string, content: string | Buffer): string {
  const path = join(root, 'inbox', name);
  writeFileSync(path, content, { flag: 'w' });
  return path;
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('takeSnapshot', () => {
  it('a small file is held in memory: the same bytes on every read, no private copy until one is asked for, then a private file removed with it', async () => {
    setUp();
    const content = 'SKU,QTY\nA-1,5\nB-2,7\n';
    put('SMALL.csv', content);
    const snapshot = await takeSnapshot(drop, 'SMALL.csv', privateDir, true);
    expect(snapshot).toMatchObject({ checksum: sha256(content), size: content.length, lines: 3, blank: false });
    expect(await text(snapshot.open())).toBe(content);
    expect(await text(snapshot.open())).toBe(content);
    expect(existsSync(privateDir) ? readdirSync(privateDir) : []).toEqual([]);
    const path = await snapshot.file();
    expect(await snapshot.file()).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe(content);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(privateDir)).toHaveLength(1);
    await snapshot.remove();
    await snapshot.remove();
    expect(readdirSync(privateDir)).toEqual([]);
  });

  it('what was read is kept, whatever happens to the inbox file afterwards', async () => {
    setUp();
    const path = put('KEPT.csv', 'H\n1\n');
    const snapshot = await takeSnapshot(drop, 'KEPT.csv', privateDir, true);
    writeFileSync(path, 'H\n2\n');
    expect(await text(snapshot.open())).toBe('H\n1\n');
    expect(readFileSync(await snapshot.file(), 'utf8')).toBe('H\n1\n');
    await snapshot.remove();
  });

  it(`a file of ${HELD_BELOW} bytes or more is copied to the private folder at once`, async () => {
    setUp();
    const content = Buffer.alloc(HELD_BELOW, 'x');
    content.write('H\n');
    put('BIG.csv', content);
    const snapshot = await takeSnapshot(drop, 'BIG.csv', privateDir, false);
    expect(readdirSync(privateDir)).toHaveLength(1);
    expect(snapshot.checksum).toBe(sha256(content));
    const path = await snapshot.file();
    expect(readFileSync(path).equals(content)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((await text(snapshot.open())).length).toBe(HELD_BELOW);
    await snapshot.remove();
    expect(readdirSync(privateDir)).toEqual([]);
  });

  it('a small file that grows after it was opened is DROP_CHANGED (read again once it is stable), and nothing of it is kept', async () => {
    setUp();
    const path = put('GROWING.csv', 'H\n1\n');
    // The real drop opens the real file; it grows between the open (its size taken) and the read.
    const growing: Drop = Object.assign(Object.create(drop) as Drop, {
      openFile: async (...args: Parameters<Drop['openFile']>) => {
        const opened = await drop.openFile(...args);
        appendFileSync(path, '2\n3\n');
        return opened;
      },
    });
    const error = await takeSnapshot(growing, 'GROWING.csv', privateDir, true).catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'DROP_CHANGED')).toBe(true);
    expect((error as Error).message).toMatch(/inbox\/GROWING\.csv changed while it was read \(4 bytes when opened, 8 read\)/);
    expect(existsSync(privateDir) ? readdirSync(privateDir) : []).toEqual([]);
  });

  it('what the process holds is bounded: past the budget a small file is copied at once, and a held one gives its share back when removed', async () => {
    setUp();
    put('ONE.csv', 'H\n1\n');
    put('TWO.csv', 'H\n2\n');
    const budget = new HeldBytes(6);
    const one = await takeSnapshot(drop, 'ONE.csv', privateDir, true, budget);
    expect(budget.held).toBe(4);
    expect(existsSync(privateDir) ? readdirSync(privateDir) : []).toEqual([]);
    const two = await takeSnapshot(drop, 'TWO.csv', privateDir, true, budget);
    expect(readdirSync(privateDir)).toHaveLength(1);
    expect(await text(two.open())).toBe('H\n2\n');
    await two.remove();
    await one.remove();
    await one.remove();
    expect(budget.held).toBe(0);
    expect(readdirSync(privateDir)).toEqual([]);
  });
});
