import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as openpgp from 'openpgp';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { WisbridgeError } from '../../src/errors.js';
import { workFolderError } from '../../src/drops/work-folder.js';
import { finished } from '../pipeline/helpers.js';

const PROBE = fileURLToPath(new URL('./work-folder-probe.ts', import.meta.url));
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wb-work-folder-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('a write the working folder cannot take is WORK_FOLDER naming the folder; a read, or any other failure, is left as it is', async () => {
  // A real ENOSPC: /dev/full refuses every write.
  const full = await import('node:fs/promises').then((fs) => fs.writeFile('/dev/full', 'x')).catch((error: unknown) => error);
  const named = workFolderError(full, dir, 'the private copy of inbox/A.csv');
  expect(named).toBeInstanceOf(WisbridgeError);
  expect(named).toMatchObject({ code: 'WORK_FOLDER', details: { folder: dir } });
  expect((named as Error).message).toBe(`cannot write the private copy of inbox/A.csv in ${dir}: ENOSPC: no space left on device, write. Free space there, or make it writable by the bridge's user; the file stays in the inbox and is taken again`);
  // A read that failed is the drop's or the file's matter; an error without an errno code is not the folder's.
  const read = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', syscall: 'read', errno: -5 });
  expect(workFolderError(read, dir, 'x')).toBe(read);
  const other = new Error('boom');
  expect(workFolderError(other, dir, 'x')).toBe(other);
});

it("an OpenPGP file whose plaintext the working folder cannot take is WORK_FOLDER, not the partner's fault (FILE_PGP would send it to error/)", async () => {
  const key = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'bridge' }], format: 'armored' });
  writeFileSync(join(dir, 'key.asc'), key.privateKey);
  const plaintext = Buffer.from('SKU;QTY\n' + 'SKU-00001;1\n'.repeat(200_000));
  const message = await openpgp.createMessage({ binary: plaintext });
  const encrypted = await openpgp.encrypt({ message, encryptionKeys: await openpgp.readKey({ armoredKey: key.publicKey }), format: 'binary' });
  writeFileSync(join(dir, 'BIG.csv.pgp'), Buffer.from(encrypted as Uint8Array));
  const target = join(dir, 'plain');
  const limited = await expand('pgp', join(dir, 'BIG.csv.pgp'), target, 'ulimit -f 1024 && ', join(dir, 'key.asc'));
  expect(limited.code, limited.message).toBe('WORK_FOLDER');
  expect(limited.message).toMatch(/^cannot write the decrypted inbox\/BIG\.csv\.pgp in .*: EFBIG: file too large, write\./);
  expect(existsSync(target)).toBe(false);
  // The same file with room decrypts.
  expect(await expand('pgp', join(dir, 'BIG.csv.pgp'), target, '', join(dir, 'key.asc'))).toEqual({});
});

it('a .gz file whose content the working folder cannot take is WORK_FOLDER, not a damaged archive', async () => {
  writeFileSync(join(dir, 'BIG.csv.gz'), gzipSync(Buffer.from('SKU;QTY\n' + 'SKU-00001;1\n'.repeat(200_000))));
  const limited = await expand('gzip', join(dir, 'BIG.csv.gz'), join(dir, 'plain'), 'ulimit -f 1024 && ');
  expect(limited.code, limited.message).toBe('WORK_FOLDER');
  expect(limited.message).toMatch(/^cannot write inbox\/BIG\.csv\.gz in .*: EFBIG: file too large, write\./);
  expect(await expand('gzip', join(dir, 'BIG.csv.gz'), join(dir, 'plain2'), '')).toEqual({});
});

/**
 * Runs work-folder-probe.ts in a shell that first runs `limit` — `ulimit -f 1024`: no file of the child past 512 KiB,
 * its 2.4 MB output then fails with EFBIG as on a full disk — and returns what it printed.
 */
async function expand(kind: 'pgp' | 'gzip', source: string, target: string, limit: string, keyFile = ''): Promise<{ code?: string; message?: string }> {
  const child = await finished(spawn('sh', ['-c', `${limit}exec "${process.execPath}" --import tsx "${PROBE}" ${kind} "${source}" "${target}" "${keyFile}"`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? child.stderr) as { code?: string; message?: string };
}
