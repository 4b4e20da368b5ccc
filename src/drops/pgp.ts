import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as OpenPgp from 'openpgp';
import { WisbridgeError } from '../errors.js';
import { workFolderError } from './work-folder.js';
import type { PgpOptions } from './options.js';

/*
 * openpgp is loaded on first use: it is large, and every process and mapping thread that never meets an encrypted
 * file (most of them) would otherwise carry it in its heap.
 */
let loaded: Promise<typeof OpenPgp> | undefined;
const pgp = (): Promise<typeof OpenPgp> => (loaded ??= import('openpgp'));

// OpenPGP for a drop (OpenPGP.js v6, streaming): inbox files `.pgp` / `.gpg` / `.asc` are decrypted into a private
// file and trusted only once the whole message was read, its integrity tag checked and (when required) the
// partner's signature verified; outbox files can be encrypted to the partner's key, and signed. Key material and
// plaintext never reach an error message or a log line: openpgp's own messages name what failed, not the data.

/** Ready keys of one drop: read and unlocked once. */
export interface PgpKeys {
  decryption?: OpenPgp.PrivateKey;
  partner?: OpenPgp.PublicKey;
  requireSignature: boolean;
  encryptOutbound: boolean;
  signOutbound: boolean;
}

const SUFFIXES = ['.pgp', '.gpg', '.asc'];

export function encryptedMemberName(name: string): string | undefined {
  const lower = name.toLowerCase();
  const suffix = SUFFIXES.find((s) => lower.endsWith(s) && lower.length > s.length);
  return suffix ? name.slice(0, -suffix.length) : undefined;
}

/** Reads and unlocks the configured keys; CONFIG_INVALID naming which key is wrong, never its content. */
export async function loadPgpKeys(options: PgpOptions, drop: string): Promise<PgpKeys> {
  const keys: PgpKeys = { requireSignature: options.requireSignature, encryptOutbound: options.encryptOutbound, signOutbound: options.signOutbound };
  const invalid = (what: string, error: unknown) => new WisbridgeError('CONFIG_INVALID', `drop ${drop}: pgp ${what} cannot be used: ${(error as Error).message}`);
  if (options.privateKey !== undefined) {
    try {
      const openpgp = await pgp();
      const key = await openpgp.readPrivateKey({ armoredKey: options.privateKey });
      keys.decryption = key.isDecrypted() ? key : await openpgp.decryptKey({ privateKey: key, passphrase: options.passphrase });
    } catch (error) {
      throw invalid('private_key (or its passphrase)', error);
    }
  }
  if (options.partnerKey !== undefined) {
    try {
      keys.partner = await (await pgp()).readKey({ armoredKey: options.partnerKey });
    } catch (error) {
      throw invalid('partner_key', error);
    }
  }
  if (keys.requireSignature && !keys.partner) throw new WisbridgeError('CONFIG_INVALID', `drop ${drop}: pgp require_signature needs partner_key`);
  if (keys.encryptOutbound && !keys.partner) throw new WisbridgeError('CONFIG_INVALID', `drop ${drop}: pgp encrypt_outbound needs partner_key`);
  if (keys.signOutbound && !keys.decryption) throw new WisbridgeError('CONFIG_INVALID', `drop ${drop}: pgp sign_outbound needs private_key`);
  return keys;
}

const refuse = (what: string, why: string) => new WisbridgeError('FILE_PGP', `${what}: ${why}; nothing of it was applied`);

/**
 * Decrypts the message in `source` (a private local copy) into `target`. The plaintext streams to disk before the
 * integrity tag and the signatures are known (openpgp's `allowUnauthenticatedStream`, which keeps memory flat), so
 * nothing reads `target` until this resolves; on any failure it is removed and FILE_PGP names the cause (WORK_FOLDER
 * when `target`'s folder could not take the plaintext: the message is not at fault).
 */
export async function decryptTo(source: string, target: string, what: string, keys: PgpKeys): Promise<void> {
  if (!keys.decryption) throw refuse(what, 'the drop has no pgp private_key to decrypt it with');
  const armored = await startsArmored(source);
  try {
    const input = Readable.toWeb(createReadStream(source, armored ? { encoding: 'utf8' } : {})) as ReadableStream<never>;
    const openpgp = await pgp();
    const message = armored ? await openpgp.readMessage({ armoredMessage: input as ReadableStream<string> }) : await openpgp.readMessage({ binaryMessage: input as ReadableStream<Uint8Array> });
    const result = await openpgp.decrypt({
      message, decryptionKeys: keys.decryption, verificationKeys: keys.partner, format: 'binary',
      // Streamed plaintext goes to a private file that is trusted only after the checks below; without this
      // openpgp buffers the whole plaintext (openpgpjs #1449). Messages without integrity protection stay refused
      // (allowUnauthenticatedMessages is false).
      config: { allowUnauthenticatedStream: true },
    });
    await pipeline(Readable.fromWeb(result.data as import('node:stream/web').ReadableStream<Uint8Array>), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    if (keys.requireSignature) {
      if (result.signatures.length === 0) throw refuse(what, 'the message is not signed, and the drop requires the partner\'s signature (pgp require_signature)');
      for (const s of result.signatures) {
        const verified = await s.verified.catch((error: unknown) => (error as Error).message);
        if (verified !== true) throw refuse(what, `the signature is not the partner's valid signature (${String(verified)})`);
      }
    }
  } catch (error) {
    await rm(target, { force: true });
    if (error instanceof WisbridgeError) throw error;
    const folder = workFolderError(error, dirname(target), `the decrypted ${what}`);
    if (folder !== error) throw folder;
    throw refuse(what, `it cannot be decrypted (${describePgpError(error)})`);
  }
}

/** openpgp's message, shortened: it names the failed check (a wrong key, "Modification detected.", a truncated packet). */
function describePgpError(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  return message.replace(/\s+/g, ' ').slice(0, 200);
}

async function startsArmored(path: string): Promise<boolean> {
  for await (const chunk of createReadStream(path, { start: 0, end: 63 })) return (chunk as Buffer).toString('latin1').includes('-----BEGIN PGP');
  return false;
}

/** `source` encrypted to the partner's key (binary OpenPGP), signed with the bridge's key when configured; streamed. */
export async function encryptStream(source: Readable, keys: PgpKeys): Promise<Readable> {
  const openpgp = await pgp();
  const message = await openpgp.createMessage({ binary: Readable.toWeb(source) as ReadableStream<Uint8Array> });
  const encrypted = await openpgp.encrypt({ message, encryptionKeys: keys.partner!, signingKeys: keys.signOutbound ? keys.decryption : undefined, format: 'binary' });
  return Readable.fromWeb(encrypted as import('node:stream/web').ReadableStream<Uint8Array>);
}
