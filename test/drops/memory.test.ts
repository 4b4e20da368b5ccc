import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDrop } from '../../src/drops/create.js';
import type { Drop } from '../../src/drops/index.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { localBacking, sftpBacking, sftpOptions, type Backing } from './fixtures.js';

const SIZE = 100 * 1024 * 1024;
/** Growth of the resident set allowed while moving 100 MB through: far below the file's size. */
const RSS_BUDGET = 48 * 1024 * 1024;

/** 100 MB of varied bytes, generated chunk by chunk: the test itself never holds the file in memory. */
function generated(total = SIZE): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) { this.push(null); return; }
      const chunk = Buffer.alloc(Math.min(256 * 1024, total - sent), sent % 251);
      chunk.writeUInt32BE(sent, 0);
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

async function roundTrip(drop: Drop): Promise<{ peakGrowth: number; written: number; read: number; same: boolean }> {
  // Warm-up (code paths, buffer pools) so that the baseline is not a cold process.
  await drop.writeAtomic('outbox', 'warm-up.csv', generated(8 * 1024 * 1024).stream);
  for await (const _chunk of await drop.openRead('outbox', 'warm-up.csv')) { /* drain */ }
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sample = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  try {
    const source = generated();
    const { size } = await drop.writeAtomic('outbox', 'big.csv', source.stream);
    const readHash = createHash('sha256');
    let read = 0;
    for await (const chunk of await drop.openRead('outbox', 'big.csv')) {
      read += (chunk as Buffer).length;
      readHash.update(chunk as Buffer);
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    if (process.env.DROPS_MEMORY_REPORT) console.log(`rss growth ${drop.type}: ${((peak - baseline) / 1048576).toFixed(1)} MiB`);
    return { peakGrowth: peak - baseline, written: size, read, same: readHash.digest('hex') === source.digest() };
  } finally {
    clearInterval(sample);
  }
}

describe('streams: 100 MB with flat memory', () => {
  let server: SftpServer;
  const backings: Backing[] = [];
  beforeAll(async () => { server = await startSftpServer(); });
  afterAll(async () => {
    for (const b of backings) b.cleanup();
    await server?.stop();
  });

  it('local drop writes and reads 100 MB without holding it in memory', async () => {
    const backing = localBacking();
    backings.push(backing);
    const drop = createDrop({ type: 'local', root: backing.root });
    const result = await roundTrip(drop);
    await drop.close();
    expect(result).toMatchObject({ written: SIZE, read: SIZE, same: true });
    expect(result.peakGrowth).toBeLessThan(RSS_BUDGET);
  });

  it('SFTP drop uploads and downloads 100 MB without holding it in memory', async () => {
    const backing = sftpBacking(server);
    backings.push(backing);
    const drop = createDrop(sftpOptions(server, backing.root, { operationTimeoutMs: 60_000 }));
    const result = await roundTrip(drop);
    await drop.close();
    expect(result).toMatchObject({ written: SIZE, read: SIZE, same: true });
    expect(result.peakGrowth).toBeLessThan(RSS_BUDGET);
  });
});
