import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { segmentsOf } from '../../src/x12/index.js';
import { sftpDropConfig } from '../drops/fixtures.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { runInboundOnce, workspace } from './helpers.js';

// An X12 945 through a real OpenSSH SFTP drop: routed by its content, applied, its result file and its 997 written to
// the drop's outbox, the file archived there.
const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
beforeAll(async () => {
  server = await startSftpServer();
});
afterAll(async () => {
  await server?.stop();
});

const JOB = `  - name: edi
    drop: wms
    service: wis
    x12:
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship }`;

describe('inbound pipeline: X12 over a real OpenSSH SFTP drop', () => {
  it('reads a 945 from the inbox, writes its result file and its 997 to the outbox, and archives it', async () => {
    const drop = sftpDropConfig(server);
    const ws = workspace({ url: emu.url, token: emu.token, dropRoot: drop.backing.root, dropYaml: drop.yaml, inboundJobs: JOB });
    drop.writeKey(ws.dir);
    ws.drop('NWL_945_20261120.edi');
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.mapping, f.outcome, f.ackFile])).toEqual([
      ['NWL_945_20261120.edi', 'x12-945-customer-shipment-ship', 'failed', 'NWL_945_20261120.ack.edi'],
    ]);
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toEqual(['NWL_945_20261120.edi']);
    expect(ws.files('outbox')).toEqual(['NWL_945_20261120.ack.edi', 'NWL_945_20261120.result.csv']);

    // The 997, read back from the drop: two sets accepted, one with a data error, one refused by its count.
    const ack = segmentsOf(ws.read('outbox', 'NWL_945_20261120.ack.edi')).map((s) => s.fields.join('*'));
    expect(ack[0]).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*WISBRIDGE {6}\*ZZ\*NWLWMS {9}\*/);
    expect(ack.slice(3, -3)).toEqual([
      'AK1*SW*1',
      'AK2*945*0001', 'AK5*A',
      'AK2*945*0002', 'AK5*A',
      'AK2*945*0003', 'AK3*W12*7**8', 'AK4*3**6*3,250', 'AK5*R*5',
      'AK2*945*0004', 'AK5*R*4',
      'AK9*P*4*4*2',
    ]);
    const rows = ws.result('NWL_945_20261120.result.csv');
    expect(rows.some((r) => r.status === 'ok')).toBe(true);
    expect(rows.filter((r) => r.status === 'error').map((r) => r.message).join('\n')).toMatch(/segment 7 \(W12\), element 03: "3,250" is not a number/);
    const state = await adminState(emu, ['customer_shipments']);
    expect(state.customer_shipments.find((s: { number: string }) => s.number === 'SO-1128').list_status).toBe('done');
  });
});
