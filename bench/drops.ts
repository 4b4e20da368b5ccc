/**
 * Streams a large file through a local and an SFTP drop (write, then read back) and prints throughput and
 * peak resident memory. Usage: npx tsx bench/drops.ts [MiB=1024] [rtt-ms ...]: each round-trip time given adds an
 * SFTP drop behind a link that much away (test/support/delay-proxy.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createDrop } from '../src/drops/create.js';
import type { Drop } from '../src/drops/index.js';
import { startDelayProxy } from '../test/support/delay-proxy.js';
import { startSftpServer } from '../test/support/sftp-server.js';

const MIB = 1024 * 1024;
const size = Number(process.argv[2] ?? 1024) * MIB;
const distances = process.argv.slice(3).map(Number);

function source(total: number): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) { this.push(null); return; }
      const chunk = Buffer.alloc(Math.min(256 * 1024, total - sent), sent % 251);
      chunk.writeUInt32BE(sent % 2 ** 32, 0);
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

async function measure(label: string, drop: Drop): Promise<void> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 25);
  try {
    const input = source(size);
    let started = performance.now();
    const { size: written } = await drop.writeAtomic('outbox', 'bench.bin', input.stream, { overwrite: true });
    const writeSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    const hash = createHash('sha256');
    let read = 0;
    for await (const chunk of await drop.openRead('outbox', 'bench.bin')) {
      read += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
    const readSeconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, process.memoryUsage().rss);
    const ok = written === size && read === size && hash.digest('hex') === input.digest();
    console.log(`${label.padEnd(18)} ${(size / MIB).toFixed(0)} MiB  write ${(size / MIB / writeSeconds).toFixed(1).padStart(7)} MiB/s  read ${(size / MIB / readSeconds).toFixed(1).padStart(7)} MiB/s  ` +
      `rss baseline ${(baseline / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB (+${((peak - baseline) / MIB).toFixed(0)} MiB)  ${ok ? 'content verified' : 'CONTENT MISMATCH'}`);
    await drop.remove('outbox', 'bench.bin');
  } finally {
    clearInterval(timer);
  }
}

const localRoot = mkdtempSync(join(tmpdir(), 'wisbridge-bench-'));
const server = await startSftpServer();
try {
  const local = createDrop({ type: 'local', root: localRoot });
  await measure('local', local);
  await local.close();
  const sftp = createDrop({
    type: 'sftp', host: server.host, port: server.port, username: server.username, privateKey: server.privateKey,
    hostKeyFingerprint: server.hostKeyFingerprint, root: server.root, operationTimeoutMs: 120_000,
  });
  await measure('sftp', sftp);
  await sftp.close();
  for (const rtt of distances) {
    const proxy = await startDelayProxy(server, rtt / 2);
    const distant = createDrop({
      type: 'sftp', host: server.host, port: proxy.port, username: server.username, privateKey: server.privateKey,
      hostKeyFingerprint: server.hostKeyFingerprint, root: server.root, operationTimeoutMs: 600_000,
    });
    await measure(`sftp ${rtt} ms away`, distant);
    await distant.close();
    await proxy.close();
  }
} finally {
  await server.stop();
  rmSync(localRoot, { recursive: true, force: true });
}
