/**
 * Decrypts a large OpenPGP message the way the bridge does (src/drops/pgp.ts: streamed, integrity and signature
 * checked at the end) and prints throughput and peak resident memory. The message is encrypted and signed first,
 * with keys generated here. Usage: npx tsx bench/pgp.ts [MiB=1024]
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as openpgp from 'openpgp';
import { decryptTo, loadPgpKeys } from '../src/drops/pgp.js';

const MIB = 1024 * 1024;
const size = Number(process.argv[2] ?? 1024) * MIB;
const dir = mkdtempSync(join(tmpdir(), 'wb-bench-pgp-'));

try {
  const passphrase = randomBytes(12).toString('hex');
  const bridge = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'bridge' }], passphrase, format: 'armored' });
  const partner = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'partner' }], format: 'armored' });
  const plainHash = createHash('sha256');
  let sent = 0;
  const plain = new Readable({
    read() {
      if (sent >= size) { this.push(null); return; }
      // CSV-like text, not compressible to nothing (openpgp compresses nothing by default anyway).
      const chunk = Buffer.from(`SKU-${String(sent).padStart(10, '0')};${sent % 97};Fund;REF-${sent};19.11.2026;;ACME\n`.repeat(4096)).subarray(0, Math.min(256 * 1024, size - sent));
      sent += chunk.length;
      plainHash.update(chunk);
      this.push(chunk);
    },
  });
  const encryptedPath = join(dir, 'big.csv.pgp');
  let started = Date.now();
  const message = await openpgp.createMessage({ binary: Readable.toWeb(plain) as ReadableStream<Uint8Array> });
  const encrypted = await openpgp.encrypt({
    message, encryptionKeys: await openpgp.readKey({ armoredKey: bridge.publicKey }), signingKeys: await openpgp.readPrivateKey({ armoredKey: partner.privateKey }), format: 'binary',
  });
  await pipeline(Readable.fromWeb(encrypted as import('node:stream/web').ReadableStream<Uint8Array>), createWriteStream(encryptedPath));
  const encryptSeconds = (Date.now() - started) / 1000;

  const keys = await loadPgpKeys({ privateKey: bridge.privateKey, passphrase, partnerKey: partner.publicKey, requireSignature: true, encryptOutbound: false, signOutbound: false }, 'bench');
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  started = Date.now();
  await decryptTo(encryptedPath, join(dir, 'big.csv'), 'big.csv.pgp', keys);
  const decryptSeconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const outHash = createHash('sha256');
  for await (const chunk of createReadStream(join(dir, 'big.csv'))) outHash.update(chunk as Buffer);
  const same = outHash.digest('hex') === plainHash.digest('hex');
  const mib = (n: number) => `${(n / MIB).toFixed(0)} MiB`;
  process.stdout.write(`plaintext ${mib(size)}, message ${mib(statSync(encryptedPath).size)} (encrypted + signed in ${encryptSeconds.toFixed(1)} s)\n`);
  process.stdout.write(`decrypt + verify: ${decryptSeconds.toFixed(1)} s (${(size / MIB / decryptSeconds).toFixed(1)} MiB/s), plaintext ${same ? 'identical' : 'DIFFERENT'}\n`);
  process.stdout.write(`peak RSS ${mib(peak)} (baseline ${mib(baseline)}, growth ${mib(peak - baseline)})\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
