import { gunzipSync, gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeZip } from '../../src/drops/test-support.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { dropWorkspaces } from './drop-workspaces.js';
import { korr, runInboundOnce } from './helpers.js';

// Compressed inbox files through the whole inbound flow, and gzipped outbox files, on the local and the OpenSSH drop.

const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
beforeAll(async () => { server = await startSftpServer(); });
afterAll(async () => { await server?.stop(); });

const drops = dropWorkspaces(emu, () => server);
const references = async (prefix: string) => ((await adminState(emu, ['adjustments'])).adjustments as Array<{ reference?: string }>)
  .map((a) => a.reference).filter((r) => r?.startsWith(prefix));

for (const [label, make] of Object.entries(drops)) {
  describe(`compressed files (${label} drop)`, () => {
    it('a .gz is gunzipped and mapped; each entry of a .zip is a file of its own, in name order, with its own result file; the containers are archived', async () => {
      const ws = make([]);
      ws.drop('KORR_GZ.csv.gz', gzipSync(korr(['SKU-00001;1;Fund;GZ-1;19.11.2026;;ACME'])));
      ws.drop('KORR_BOTH.zip', makeZip([
        { name: 'KORR_Z2.csv', data: korr(['SKU-00002;2;Fund;Z2-1;19.11.2026;;ACME']) },
        { name: 'KORR_Z1.csv', data: korr(['SKU-00004;3;Fund;Z1-1;19.11.2026;;ACME']), method: 0 },
      ]));
      const report = await runInboundOnce(ws);
      const outcomes = report.files.map((f) => [f.file, f.outcome]);
      expect(outcomes.filter(([f]) => f.startsWith('KORR_Z'))).toEqual([['KORR_Z1.csv', 'done'], ['KORR_Z2.csv', 'done']]);
      expect(outcomes).toContainEqual(['KORR_GZ.csv', 'done']);
      expect(report.files).toHaveLength(3);
      expect(ws.files('inbox')).toEqual([]);
      expect(ws.files('archive')).toEqual(['KORR_BOTH.zip', 'KORR_GZ.csv.gz']);
      expect(ws.files('outbox')).toEqual(['KORR_GZ.result.csv', 'KORR_Z1.result.csv', 'KORR_Z2.result.csv']);
      expect(ws.result('KORR_Z1.result.csv').map((r) => r.status)).toEqual(['ok']);
      expect(await references('Z')).toEqual(['Z1-1', 'Z2-1']);
      expect(await references('GZ-')).toEqual(['GZ-1']);
      // The same content again, gzipped differently: a duplicate, recognised by the expanded bytes.
      ws.drop('KORR_GZ.csv.gz', gzipSync(korr(['SKU-00001;1;Fund;GZ-1;19.11.2026;;ACME']), { level: 1 }));
      expect((await runInboundOnce(ws)).files.map((f) => f.outcome)).toEqual(['duplicate']);
    });

    it('a zip bomb and a damaged .gz go to error/ with the reason; nothing of them is applied', async () => {
      const ws = make(['max_expansion_ratio: 50']);
      ws.drop('BOMB.zip', makeZip([{ name: 'KORR_BOMB.csv', data: Buffer.concat([korr(['SKU-00001;1;Fund;BOMB-1;19.11.2026;;ACME']), Buffer.alloc(4 * 1024 * 1024, 0x20)]) }]));
      ws.drop('KORR_CUT.csv.gz', gzipSync(korr(['SKU-00001;1;Fund;CUT-1;19.11.2026;;ACME'])).subarray(0, 30));
      const report = await runInboundOnce(ws);
      expect(report.files.map((f) => [f.file, f.outcome])).toEqual(expect.arrayContaining([['BOMB.zip', 'rejected'], ['KORR_CUT.csv.gz', 'rejected']]));
      expect(ws.files('error')).toEqual(['BOMB.zip', 'BOMB.zip.error.txt', 'KORR_CUT.csv.gz', 'KORR_CUT.csv.gz.error.txt']);
      expect(ws.read('error', 'BOMB.zip.error.txt')).toMatch(/reason: FILE_ARCHIVE: BOMB\.zip: entry KORR_BOMB\.csv expands \d+ times, more than 50 \(the drop's max_expansion_ratio\): refused as a possible zip bomb/);
      expect(ws.read('error', 'KORR_CUT.csv.gz.error.txt')).toMatch(/reason: FILE_ARCHIVE: KORR_CUT\.csv\.gz is not a valid compressed file/);
      expect([...await references('BOMB'), ...await references('CUT')]).toEqual([]);
    });

    it('outbound gzip: the result file is written as NAME.gz, with its checksum file naming the .gz', async () => {
      const ws = make(['outbound_gzip: true', 'outbound_checksum: sha256']);
      ws.drop('KORR_OUT.csv', korr(['SKU-00001;1;Fund;OUT-1;19.11.2026;;ACME']));
      const report = await runInboundOnce(ws);
      expect(report.files.map((f) => f.outcome)).toEqual(['done']);
      expect(ws.files('outbox')).toEqual(['KORR_OUT.result.csv.gz', 'KORR_OUT.result.csv.gz.sha256']);
      const text = gunzipSync(readFileSync(join(ws.folder('outbox'), 'KORR_OUT.result.csv.gz'))).toString('utf8');
      expect(text.split('\r\n')[1]).toMatch(/^2,/);
      expect(ws.read('outbox', 'KORR_OUT.result.csv.gz.sha256')).toMatch(/^[0-9a-f]{64} {2}KORR_OUT\.result\.csv\.gz\n$/);
    });
  });
}
