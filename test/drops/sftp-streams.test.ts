import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { PIECE, READ_WINDOW, SftpReadStream, SftpWriteStream, WRITE_WINDOW } from '../../src/drops/sftp-streams.js';
import { readAll } from './fixtures.js';

/**
 * The answers OpenSSH never gives on loopback but a server may: reads answered with less than asked, answers out of
 * order. A channel scripted over a buffer gives them (the streams against OpenSSH itself: behaviour.ts, memory.test.ts).
 */
function scriptedChannel(content: Buffer, options: { shortReads?: number; failWriteAt?: number; noFstat?: boolean } = {}) {
  const written = Buffer.alloc(content.length);
  const seen = { outstanding: 0, mostOutstanding: 0, closedWith: -1, reads: 0, writesAnswered: 0, statsAfterClose: 0, modes: [] as number[] };
  let order = 0;
  // answers leave in a shuffled order: every third one waits a turn longer
  const answer = (fn: () => void) => {
    seen.outstanding++;
    seen.mostOutstanding = Math.max(seen.mostOutstanding, seen.outstanding);
    const later = order++ % 3 === 0;
    setImmediate(() => (later ? setImmediate(() => { seen.outstanding--; fn(); }) : (seen.outstanding--, fn())));
  };
  const channel = {
    read(_h: Buffer, buf: Buffer, off: number, len: number, pos: number, cb: (e: Error | undefined, n: number) => void) {
      seen.reads++;
      answer(() => {
        const n = Math.max(0, Math.min(len, options.shortReads ?? len, content.length - pos));
        if (n > 0) content.copy(buf, off, pos, pos + n);
        cb(undefined, n);
      });
    },
    write(_h: Buffer, buf: Buffer, off: number, len: number, pos: number, cb: (e?: Error) => void) {
      answer(() => {
        if (options.failWriteAt !== undefined && pos >= options.failWriteAt) return cb(Object.assign(new Error('Failure'), { code: 4 }));
        buf.copy(written, pos, off, off + len);
        seen.writesAnswered++;
        cb();
      });
    },
    fstat(_h: Buffer, cb: (e: Error | undefined, attrs?: { size: number }) => void) {
      answer(() => (options.noFstat ? cb(Object.assign(new Error('Operation unsupported'), { code: 8 })) : cb(undefined, { size: written.length })));
    },
    stat(_p: string, cb: (e: Error | undefined, attrs: { size: number }) => void) {
      seen.statsAfterClose += seen.closedWith >= 0 ? 1 : 0;
      answer(() => cb(undefined, { size: written.length }));
    },
    fchmod(_h: Buffer, mode: number, cb: (e?: Error) => void) {
      seen.modes.push(mode);
      answer(() => cb());
    },
    chmod(_p: string, _m: number, cb: (e?: Error) => void) {
      cb();
    },
    close(_h: Buffer, cb: (e?: Error) => void) {
      seen.closedWith = seen.outstanding;
      answer(() => cb());
    },
  };
  return { channel: channel as unknown as SFTPWrapper, written, seen };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('SFTP streams with a window of requests', () => {
  it('read a file in order with many requests out at once, through short and out-of-order answers', async () => {
    const content = randomBytes(3 * PIECE * READ_WINDOW + 12_345);
    const { channel, seen } = scriptedChannel(content, { shortReads: 5_000 });
    const read = await readAll(new SftpReadStream(channel, Buffer.from('h'), content.length));
    expect(read.length).toBe(content.length);
    expect(sha(read)).toBe(sha(content));
    expect(seen.mostOutstanding).toBeGreaterThan(READ_WINDOW / 2);
    expect(seen.mostOutstanding).toBeLessThanOrEqual(READ_WINDOW + 1);
    expect(seen.closedWith).toBeGreaterThanOrEqual(0);
  });

  it('read an empty file and a file of exactly one window', async () => {
    expect((await readAll(new SftpReadStream(scriptedChannel(Buffer.alloc(0)).channel, Buffer.from('h'), 0))).length).toBe(0);
    const content = randomBytes(PIECE * READ_WINDOW);
    expect(sha(await readAll(new SftpReadStream(scriptedChannel(content).channel, Buffer.from('h'), content.length)))).toBe(sha(content));
  });

  it('a small file is read in one round trip (its bytes and its end asked for together); one that grew after it was opened is read to its end', async () => {
    const small = scriptedChannel(randomBytes(1000));
    expect((await readAll(new SftpReadStream(small.channel, Buffer.from('h'), 1000))).length).toBe(1000);
    expect(small.seen.reads).toBe(2); // the bytes and the end, asked for together
    expect(small.seen.mostOutstanding).toBe(2);
    const grown = randomBytes(5 * PIECE + 10);
    const read = await readAll(new SftpReadStream(scriptedChannel(grown).channel, Buffer.from('h'), PIECE));
    expect(sha(read)).toBe(sha(grown));
  });

  it('write every byte at its offset, many pieces out at once, and close the handle only after the last answer', async () => {
    const content = randomBytes(2 * PIECE * WRITE_WINDOW + 777);
    const { channel, written, seen } = scriptedChannel(Buffer.alloc(content.length));
    // one big chunk and many small ones
    const chunks = [content.subarray(0, PIECE * 5 + 1), ...Array.from({ length: 100 }, (_, i) => content.subarray(PIECE * 5 + 1 + i * 1000, PIECE * 5 + 1 + (i + 1) * 1000)), content.subarray(PIECE * 5 + 1 + 100_000)];
    const sink = new SftpWriteStream(channel, Buffer.from('h'), '/x', 0o644);
    await pipeline(Readable.from(chunks), sink);
    expect(sha(written)).toBe(sha(content));
    expect(sink.remoteSize).toBe(content.length);
    expect(seen.mostOutstanding).toBeGreaterThan(WRITE_WINDOW / 2);
    // the last chunk is four windows long: it goes out as the window makes room (and the mode may be out too)
    expect(seen.mostOutstanding).toBeLessThanOrEqual(WRITE_WINDOW + 1);
    expect(seen.closedWith).toBe(0);
    expect(seen.modes).toEqual([0o644]);
  });

  it('the size comes from the path, once closed, on a server that cannot fstat a handle opened for writing', async () => {
    const content = randomBytes(PIECE * 3 + 5);
    const { channel, seen } = scriptedChannel(Buffer.alloc(content.length), { noFstat: true });
    const sink = new SftpWriteStream(channel, Buffer.from('h'), '/x', 0o644);
    await pipeline(Readable.from([content]), sink);
    expect(sink.remoteSize).toBe(content.length);
    expect(seen.statsAfterClose).toBe(1);
  });

  it('a write the server refuses fails the stream', async () => {
    const { channel } = scriptedChannel(Buffer.alloc(PIECE * 8), { failWriteAt: PIECE * 3 });
    const failed = await pipeline(Readable.from([randomBytes(PIECE * 8)]), new SftpWriteStream(channel, Buffer.from('h'), '/x', 0o644)).catch((e: unknown) => e);
    expect((failed as { code?: number }).code).toBe(4);
  });
});
