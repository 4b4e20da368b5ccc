import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { dropWorkspaces } from './drop-workspaces.js';
import { korr, runInboundOnce } from './helpers.js';

// OpenPGP through the whole flow on the local and the OpenSSH drop. Keys are generated here, none is committed.

const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
const PASSPHRASE = `test-passphrase-${process.pid}`;
let bridge: { privateKey: string; publicKey: string };
let partner: { privateKey: string; publicKey: string };
let stranger: { privateKey: string; publicKey: string };
beforeAll(async () => {
  server = await startSftpServer();
  const generate = (name: string, passphrase?: string) => openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name }], passphrase, format: 'armored' as const });
  [bridge, partner, stranger] = await Promise.all([generate('bridge', PASSPHRASE), generate('partner'), generate('stranger')]);
});
afterAll(async () => { await server?.stop(); });

const drops = dropWorkspaces(emu, () => server);
const pub = (armored: string) => openpgp.readKey({ armoredKey: armored });
const priv = (armored: string) => openpgp.readPrivateKey({ armoredKey: armored });

async function encrypt(bytes: Buffer, options: { to?: string; signer?: string | null; armor?: boolean } = {}): Promise<Buffer> {
  const message = await openpgp.createMessage({ binary: bytes });
  const signingKeys = options.signer === null ? undefined : await priv(options.signer ?? partner.privateKey);
  const encryptionKeys = await pub(options.to ?? bridge.publicKey);
  if (options.armor) return Buffer.from(await openpgp.encrypt({ message, encryptionKeys, signingKeys, format: 'armored' }), 'utf8');
  return Buffer.from(await openpgp.encrypt({ message, encryptionKeys, signingKeys, format: 'binary' }));
}

/** OpenPGP.js internals its typings hide: enough to write the obsolete packet no public API writes any more. */
interface SedPacket { packets: openpgp.PacketList<openpgp.AnyPacket>; encrypt(algorithm: number, key: Uint8Array, config: object): Promise<void> }
interface LiteralPacket { setBytes(bytes: Uint8Array, format: openpgp.enums.literal): void }
const enums = openpgp.enums as unknown as { write(type: object, value: string): number };
const enumsWrite = (type: object, value: string) => enums.write(type, value);

/** A message without integrity protection (old PGP, tag 9): built by hand, as OpenPGP.js refuses to write one. */
async function withoutIntegrity(bytes: Buffer): Promise<Buffer> {
  const encryptionKeys = await pub(bridge.publicKey);
  const sk = await openpgp.generateSessionKey({ encryptionKeys });
  const keyPackets = await openpgp.encryptSessionKey({ ...sk, encryptionKeys, format: 'object' });
  const literal = new openpgp.LiteralDataPacket();
  (literal as unknown as LiteralPacket).setBytes(bytes, openpgp.enums.literal.binary);
  const sed = new openpgp.SymmetricallyEncryptedDataPacket() as unknown as SedPacket;
  sed.packets = new openpgp.PacketList();
  sed.packets.push(literal);
  await sed.encrypt(enumsWrite(openpgp.enums.symmetric, sk.algorithm), sk.data, { ...openpgp.config, allowUnauthenticatedMessages: true });
  const list = new openpgp.PacketList<openpgp.AnyPacket>();
  list.push(...keyPackets.packets, sed as unknown as openpgp.AnyPacket);
  return Buffer.from(list.write());
}

const row = (ref: string) => korr([`SKU-00001;1;Fund;${ref};19.11.2026;;ACME`]);

for (const [label, make] of Object.entries(drops)) {
  describe(`OpenPGP (${label} drop)`, () => {
    it('decrypts and verifies before mapping; refuses wrong keys, tampering, truncation, missing or foreign signatures and unprotected messages; encrypts and signs results', async () => {
      const ws = make([`pgp: { private_key: { file: bridge.asc }, passphrase: { file: bridge.pass }, partner_key: { file: partner.asc }, require_signature: true, encrypt_outbound: true, sign_outbound: true }`]);
      writeFileSync(join(ws.dir, 'bridge.asc'), bridge.privateKey, { mode: 0o600 });
      writeFileSync(join(ws.dir, 'bridge.pass'), PASSPHRASE, { mode: 0o600 });
      writeFileSync(join(ws.dir, 'partner.asc'), partner.publicKey);
      const good = await encrypt(row('PGP-GOOD'));
      ws.drop('KORR_GOOD.csv.pgp', good);
      ws.drop('KORR_ARMOR.csv.asc', await encrypt(row('PGP-ARMOR'), { armor: true }));
      ws.drop('KORR_UNSIGNED.csv.pgp', await encrypt(row('PGP-UNSIGNED'), { signer: null }));
      ws.drop('KORR_FOREIGN.csv.pgp', await encrypt(row('PGP-FOREIGN'), { signer: stranger.privateKey }));
      ws.drop('KORR_WRONGKEY.csv.pgp', await encrypt(row('PGP-WRONGKEY'), { to: stranger.publicKey }));
      const tampered = Buffer.from(await encrypt(row('PGP-TAMPERED')));
      tampered[tampered.length - 40] ^= 1;
      ws.drop('KORR_TAMPERED.csv.pgp', tampered);
      ws.drop('KORR_CUT.csv.pgp', (await encrypt(row('PGP-CUT'))).subarray(0, 150));
      ws.drop('KORR_NOMDC.csv.pgp', await withoutIntegrity(row('PGP-NOMDC')));
      const report = await runInboundOnce(ws);
      const outcomes = Object.fromEntries(report.files.map((f) => [f.file, f.outcome]));
      expect(outcomes).toEqual({
        'KORR_GOOD.csv': 'done', 'KORR_ARMOR.csv': 'done', 'KORR_UNSIGNED.csv.pgp': 'rejected', 'KORR_FOREIGN.csv.pgp': 'rejected',
        'KORR_WRONGKEY.csv.pgp': 'rejected', 'KORR_TAMPERED.csv.pgp': 'rejected', 'KORR_CUT.csv.pgp': 'rejected', 'KORR_NOMDC.csv.pgp': 'rejected',
      });
      const reason = (name: string) => ws.read('error', `${name}.error.txt`);
      expect(reason('KORR_UNSIGNED.csv.pgp')).toContain('FILE_PGP: KORR_UNSIGNED.csv.pgp: the message is not signed, and the drop requires the partner\'s signature');
      expect(reason('KORR_FOREIGN.csv.pgp')).toContain('FILE_PGP: KORR_FOREIGN.csv.pgp: the signature is not the partner\'s valid signature');
      // The reason docs/drops.md's table gives for this case.
      expect(reason('KORR_WRONGKEY.csv.pgp')).toContain('FILE_PGP: KORR_WRONGKEY.csv.pgp: it cannot be decrypted (Error decrypting message: No decryption key packets found)');
      expect(reason('KORR_TAMPERED.csv.pgp')).toMatch(/FILE_PGP: KORR_TAMPERED\.csv\.pgp: it cannot be decrypted \(.*\); nothing of it was applied/);
      expect(reason('KORR_CUT.csv.pgp')).toContain('FILE_PGP: KORR_CUT.csv.pgp: it cannot be decrypted');
      expect(reason('KORR_NOMDC.csv.pgp')).toMatch(/FILE_PGP: KORR_NOMDC\.csv\.pgp: it cannot be decrypted \(.*not authenticated/);
      for (const name of ws.files('error').filter((n) => n.endsWith('.error.txt'))) {
        expect(ws.read('error', name)).not.toMatch(/BEGIN PGP|PGP-[A-Z]|SKU-0000|Artikel/);
      }
      const refs = ((await adminState(emu, ['adjustments'])).adjustments as Array<{ reference?: string }>).map((a) => a.reference).filter((r) => r?.startsWith('PGP-'));
      expect(refs.sort()).toEqual(['PGP-ARMOR', 'PGP-GOOD']);
      expect(ws.files('archive')).toEqual(['KORR_ARMOR.csv.asc', 'KORR_GOOD.csv.pgp']);

      // Results are encrypted to the partner and signed by the bridge.
      expect(ws.files('outbox')).toEqual(['KORR_ARMOR.result.csv.pgp', 'KORR_GOOD.result.csv.pgp']);
      const result = await openpgp.decrypt({
        message: await openpgp.readMessage({ binaryMessage: readFileSync(join(ws.folder('outbox'), 'KORR_GOOD.result.csv.pgp')) }),
        decryptionKeys: await priv(partner.privateKey), verificationKeys: await pub(bridge.publicKey), expectSigned: true, format: 'binary',
      });
      expect(Buffer.from(result.data).toString('utf8').split('\r\n')[1]).toMatch(/^2,SKU-00001,ok,/);

      // The same plaintext encrypted again is a duplicate: recognised by the plaintext.
      ws.drop('KORR_GOOD.csv.pgp', await encrypt(row('PGP-GOOD')));
      expect((await runInboundOnce(ws)).files.map((f) => f.outcome)).toEqual(['duplicate']);
    });
  });
}
