import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { dropWorkspaces } from './drop-workspaces.js';
import { korr, runInboundOnce } from './helpers.js';

// Checksum files and done markers through the whole inbound flow, on the local drop and on a real OpenSSH drop.

const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
beforeAll(async () => { server = await startSftpServer(); });
afterAll(async () => { await server?.stop(); });

const digest = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

const drops = dropWorkspaces(emu, () => server);

for (const [label, make] of Object.entries(drops)) {
  describe(`checksum files and done markers (${label} drop)`, () => {
    it('a matching checksum file lets the file through; a wrong one and a missing required one send the file to error/ with the reason, nothing applied; results get a sidecar and a done marker', async () => {
      const ws = make(['checksum_sidecar: require', 'checksum_missing: error', 'outbound_checksum: sha256', 'done_marker: .ok']);
      const good = korr(['SKU-00001;2;Fund;SUM-1;19.11.2026;;ACME']);
      const bad = korr(['SKU-00002;3;Fund;SUM-2;19.11.2026;;ACME']);
      ws.drop('KORR_GOOD.csv', good);
      ws.drop('KORR_GOOD.csv.sha256', `${digest('sha256', good)} *KORR_GOOD.csv\n`);
      ws.drop('KORR_BAD.csv', bad);
      ws.drop('KORR_BAD.csv.md5', `MD5 (KORR_BAD.csv) = ${digest('md5', good)}\n`);
      ws.drop('KORR_NONE.csv', korr(['SKU-00003;4;Fund;SUM-3;19.11.2026;;ACME']));
      const report = await runInboundOnce(ws);
      expect(Object.fromEntries(report.files.map((f) => [f.file, f.outcome]))).toEqual({ 'KORR_BAD.csv': 'rejected', 'KORR_GOOD.csv': 'done', 'KORR_NONE.csv': 'rejected' });
      expect(ws.files('inbox')).toEqual([]);
      expect(ws.files('archive')).toEqual(['KORR_GOOD.csv', 'KORR_GOOD.csv.sha256']);
      expect(ws.files('error')).toEqual(['KORR_BAD.csv', 'KORR_BAD.csv.error.txt', 'KORR_BAD.csv.md5', 'KORR_NONE.csv', 'KORR_NONE.csv.error.txt']);
      expect(ws.read('error', 'KORR_BAD.csv.error.txt')).toContain(`reason: FILE_CHECKSUM: KORR_BAD.csv does not match KORR_BAD.csv.md5: its md5 is ${digest('md5', bad)}, the checksum file says ${digest('md5', good)}`);
      expect(ws.read('error', 'KORR_NONE.csv.error.txt')).toContain('reason: FILE_CHECKSUM: KORR_NONE.csv has no checksum file (KORR_NONE.csv.sha256 or KORR_NONE.csv.md5), and the drop requires one');
      const adjustments = (await adminState(emu, ['adjustments'])).adjustments as Array<{ reference?: string }>;
      expect(adjustments.map((a) => a.reference).filter((r) => r?.startsWith('SUM-'))).toEqual(['SUM-1']);
      // Outbound: the result file, then its sha256 sidecar (sha256sum format), then the done marker.
      expect(ws.files('outbox')).toEqual(['KORR_GOOD.result.csv', 'KORR_GOOD.result.csv.ok', 'KORR_GOOD.result.csv.sha256']);
      const result = Buffer.from(ws.read('outbox', 'KORR_GOOD.result.csv'), 'utf8');
      expect(ws.read('outbox', 'KORR_GOOD.result.csv.sha256')).toBe(`${digest('sha256', result)}  KORR_GOOD.result.csv\n`);
      expect(ws.read('outbox', 'KORR_GOOD.result.csv.ok')).toBe('');
    });

    it('by default a required checksum file is waited for; a wrong one can be waited for too; the file goes through once a matching one comes', async () => {
      const ws = make(['checksum_sidecar: require', 'checksum_mismatch: wait']);
      const bytes = korr(['SKU-00001;1;Fund;WAIT-1;19.11.2026;;ACME']);
      ws.drop('KORR_WAIT.csv', bytes);
      let report = await runInboundOnce(ws);
      expect(report.files).toEqual([]); // not ready without its checksum file
      ws.drop('KORR_WAIT.csv.sha256', `${'0'.repeat(64)}  KORR_WAIT.csv\n`);
      report = await runInboundOnce(ws);
      expect(report.files.map((f) => [f.outcome, f.reason])).toEqual([['waiting', expect.stringContaining('FILE_CHECKSUM: KORR_WAIT.csv does not match KORR_WAIT.csv.sha256')]]);
      expect(ws.files('inbox')).toEqual(['KORR_WAIT.csv', 'KORR_WAIT.csv.sha256']);
      ws.drop('KORR_WAIT.csv.sha256', `${digest('sha256', bytes)}\n`);
      report = await runInboundOnce(ws);
      expect(report.files.map((f) => f.outcome)).toEqual(['done']);
      expect(ws.files('archive')).toEqual(['KORR_WAIT.csv', 'KORR_WAIT.csv.sha256']);
    });
  });
}
