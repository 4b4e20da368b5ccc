import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { segmentsOf } from '../../src/x12/index.js';
import { useEmulator } from '../support/emulator.js';
import { runInboundOnce, workspace, type Workspace } from './helpers.js';

// A file that starts with ISA but whose ISA is not what the standard says (docs/x12.md, "An ISA that cannot be read"):
// answered with a TA1 when the ISA can be read, to error/ with the reason when it cannot.
const emu = useEmulator({ resetEachTest: true });

const JOB = `  - name: edi
    drop: wms
    service: wis
    x12:
      - { transaction_set: "947", mapping: x12-947-inventory-adjustments }`;

const SAMPLE = readFileSync(join(import.meta.dirname, '../../samples/NWL_947_20261120.edi'), 'utf8');
const ISA = SAMPLE.slice(0, SAMPLE.indexOf('~') + 1);

function ediWorkspace(): Workspace {
  return workspace({ url: emu.url, token: emu.token, inboundJobs: JOB });
}

describe('inbound pipeline: an X12 file whose ISA is not as the standard says', () => {
  it('answers an ISA of the wrong length but readable separators and ids with a TA1 (022), and sends none of its sets', async () => {
    expect(ISA).toHaveLength(106);
    const ws = ediWorkspace();
    // Fields not padded to their width: 97 characters, every element and separator still readable.
    ws.drop('short.edi', SAMPLE.replace('*ZZ*NWLWMS         *', '*ZZ*NWLWMS*'));
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.outcome, f.ackFile])).toEqual([['short.edi', 'failed', 'short.ack.edi']]);
    expect(report.files[0]!.rows).toMatchObject({ ok: 0, uncertain: 0 });
    const ack = segmentsOf(ws.read('outbox', 'short.ack.edi')).map((s) => s.fields.join('*'));
    expect(ack.map((s) => s.slice(0, 3))).toEqual(['ISA', 'TA1', 'IEA']);
    // Addressed back to the sender its ISA named, padded as the standard wants.
    expect(ack[0]).toContain('*ZZ*NWLWMS         *');
    expect(ack[1]).toBe('TA1*000004712*261120*2305*R*022');
    const result = ws.read('outbox', 'short.result.csv');
    expect(result).toContain('the ISA segment is 97 characters; refused (isa-length, code 022)');
    expect(ws.files('archive')).toEqual(['short.edi']);
  });

  it.each([
    ['fewer than 16 elements', `${ISA.slice(0, 40)}~\n${'W19 line without separators\n'.repeat(12)}`, 'short-isa.edi: the ISA segment has fewer than 16 elements within 256 bytes'],
    ['the element separator as ISA16', SAMPLE.replace('*P*>~', '*P**~'), 'bad-separators.edi: the ISA segment names no usable component separator (ISA16) and segment terminator after it'],
  ])('refuses a file whose ISA cannot be read (%s) whole, to error/ with the reason, unanswered', async (_what, text, reason) => {
    const ws = ediWorkspace();
    const name = reason.slice(0, reason.indexOf(':'));
    ws.drop(name, text);
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.outcome, f.ackFile])).toEqual([[name, 'rejected', undefined]]);
    expect(report.files[0]!.reason).toBe(`X12_SYNTAX: ${reason.replace(':', ', offset 0:')}`);
    expect(ws.files('error')).toEqual([name, `${name}.error.txt`]);
    expect(ws.read('error', `${name}.error.txt`)).toContain(`reason: X12_SYNTAX: ${name}, offset 0: `);
    expect(ws.files('outbox')).toEqual([]);
  });
});
