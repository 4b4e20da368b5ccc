import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { resultStream } from '../../src/pipeline/result-file.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { INBOUND_SAMPLES, korr, ROOT, runInboundOnce, workspace, type Workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

/** Every result file of the run, and the one the journal gives for the same file: they must be the same bytes. */
async function expectSameAsJournal(ws: Workspace, files: readonly { fileId?: number; resultFile?: string }[]): Promise<number> {
  const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
  let compared = 0;
  try {
    for (const f of files) {
      if (f.fileId === undefined || f.resultFile === undefined) continue;
      const written = readFileSync(join(ws.folder('outbox'), f.resultFile), 'utf8');
      expect(written, f.resultFile).toBe(await text(resultStream(journal, f.fileId)));
      compared++;
    }
  } finally {
    await journal.close();
  }
  return compared;
}

// A first run writes its result file as the rows are decided (ResultSpool); the journal's result file is the reference.
describe('result files written while sending are the journal\'s, byte for byte', () => {
  it('every sample document type: ok, refused, rejected by the mapping, skipped, multi-line documents and records', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2 });
    const samples = INBOUND_SAMPLES;
    for (const s of samples) ws.drop(s);
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => f.outcome).filter((o) => o !== 'done' && o !== 'failed')).toEqual([]);
    expect(await expectSameAsJournal(ws, report.files)).toBe(samples.length);
  });

  it('rows rejected between documents of one request, across requests, and uncertain rows', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 3 });
    const rows: string[] = [];
    for (let i = 1; i <= 40; i++) {
      if (i % 7 === 0) rows.push(`SKU-00001;${i}x;Fund;R-${i};19.11.2026;;ACME`); // not a number: rejected by the mapping
      else if (i % 11 === 0) rows.push(`SKU-99999;1;Fund;R-${i};19.11.2026;;ACME`); // refused by the service
      else rows.push(`SKU-0000${1 + (i % 5)};${i};Fund;R-${i};19.11.2026;;ACME`);
    }
    ws.drop('KORR_MIXED.csv', korr(rows));
    ws.drop('KORR_LOST.csv', korr(['SKU-00001;1;Fund;L-1;19.11.2026;;ACME', 'SKU-00002;2;Fund;L-2;19.11.2026;;ACME']));
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory' });
    const report = await runInboundOnce(ws);
    const counts = Object.fromEntries(report.files.map((f) => [f.file, f.rows]));
    expect(counts['KORR_LOST.csv'].uncertain + counts['KORR_MIXED.csv'].uncertain).toBeGreaterThan(0);
    expect(counts['KORR_MIXED.csv'].error).toBeGreaterThanOrEqual(5 + 3);
    expect(await expectSameAsJournal(ws, report.files)).toBe(2);
    const mixed = ws.result('KORR_MIXED.result.csv');
    expect(mixed.map((r) => Number(r.line))).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    // A row refused by the mapping names its document like a sent one: the adjustment's SKU.
    const line8 = mixed.find((r) => r.line === '8')!;
    expect(line8).toMatchObject({ status: 'error', document: 'SKU-00001' });
    expect(line8.message).toContain('"7x" is not a number');
  });

  it('documents whose lines interleave: the result file comes from the journal, in line order', async () => {
    const ship = readFileSync(join(ROOT, 'mappings/customer-shipment-ship.yaml'), 'utf8');
    const unsorted = ship.replace('sorted: true', 'sorted: false').replace('files: "SHIP_*.csv"', 'files: "SHIPU_*.csv"');
    expect(unsorted).not.toBe(ship);
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 1, extraMappings: { 'ship-unsorted': unsorted } });
    const [header, a1, a2, b1, b2] = readFileSync(join(ROOT, 'samples/SHIP_20261120_flat.csv'), 'utf8').split('\n');
    // SO-1126 on lines 2 and 4, SO-1127 on lines 3 and 5: the mapper gives SO-1126 (lines 2, 4) first.
    ws.drop('SHIPU_20261121.csv', [header, a1, b1, a2, b2, ''].join('\n'));
    const report = await runInboundOnce(ws);
    expect(await expectSameAsJournal(ws, report.files)).toBe(1);
    const result = ws.result(report.files[0].resultFile!);
    expect(result.map((r) => `${r.line}:${r.document}:${r.status}`)).toEqual(['2:SO-1126:ok', '3:SO-1127:ok', '4:SO-1126:ok', '5:SO-1127:ok']);
  });
});
