import { describe, expect, it } from 'vitest';
import type { ExportRecord } from '../journal/index.js';
import { tempDir, testJournal } from '../journal/test-support.js';
import { resultCsv, resultCsvParts, resultFileName } from './files.js';
import { fileNameProblem, formatDateStamp } from '../util/date-stamp.js';
import { fileTimestamp, formatFileName, parseWorkType, WORK_TYPE_SPECS } from './work-types.js';
import { testHooks } from '../journal/testing.js';

describe('work types and file names', () => {
  it('reads work types in config and CLI spelling', () => {
    expect(parseWorkType('customer-shipments')).toBe('customerShipments');
    expect(parseWorkType('inboundTransfers')).toBe('inboundTransfers');
    expect(parseWorkType('products')).toBe('products');
    expect(parseWorkType('pallets')).toBeUndefined();
  });

  it('lists inbound transfers with an explicit status (their default, all, would include done transfers)', () => {
    expect(WORK_TYPE_SPECS.inboundTransfers.pending).toEqual({ status: 'pending' });
    expect(Object.entries(WORK_TYPE_SPECS).filter(([, s]) => s.cancellable).map(([t]) => t)).toEqual(['customerShipments', 'customerReturns']);
  });

  it('fills {job} {work_type} {timestamp} (UTC) {seq} (6 digits)', () => {
    const at = new Date('2026-11-22T03:04:05.678+01:00');
    expect(fileTimestamp(at)).toBe('20261122020405');
    expect(formatFileName('{job}-{work_type}_{timestamp}_{seq}.csv', { name: 'so', work_type: 'customerShipments' }, at, 42))
      .toBe('so-customerShipments_20261122020405_000042.csv');
  });

  it('fills a date stamp in a named zone or the machine\'s ({date:PATTERN@ZONE}), as partners name daily files', () => {
    const at = new Date('2026-11-22T23:30:05Z');
    const job = { name: 'so', work_type: 'customerShipments' } as const;
    expect(formatFileName('SO_{date:yyyyMMdd@Europe/Berlin}.csv', job, at, 1)).toBe('SO_20261123.csv');
    expect(formatFileName('SO_{date:yyyy-MM-dd_HHmm@America/New_York}_{seq}.csv', job, at, 7)).toBe('SO_2026-11-22_1830_000007.csv');
    expect(formatFileName('SO_{date:yyMMdd@UTC}.csv', job, at, 1)).toBe('SO_261122.csv');
    expect(formatDateStamp(at, 'yyyyMMdd')).toMatch(/^2026112[23]$/);
    expect(fileNameProblem('SO_{date:yyyyMMdd@Mars/Olympus}.csv')).toMatch(/"Mars\/Olympus" is not a time zone/);
    expect(fileNameProblem('SO_{date:yyyyMMdd@Europe/Berlin}.csv')).toBeUndefined();
  });

  it('writes the result file with neutralized cells and quoted line breaks', () => {
    const record = (id: number, ackStatus: ExportRecord['ackStatus'], messages: string[]): ExportRecord => ({
      exportId: 1, fileName: 'so_1.csv', workType: 'customerShipments', id, number: `SO-${id}`, updatedAt: null, ackStatus, acknowledgedAt: null, messages,
    });
    expect(resultFileName('so_1.csv')).toBe('so_1.csv.ack.csv');
    expect(resultCsv([record(1, 'acknowledged', []), record(2, 'error', ['=cmd', 'line\nbreak'])])).toBe(
      'file,id,number,status,acknowledged_at,message\nso_1.csv,1,SO-1,acknowledged,,\nso_1.csv,2,SO-2,error,,"\'=cmd | line\nbreak"\n',
    );
    // A record number that is a plain signed number is data, not a formula; anything else starting with a sign is neutralized.
    const numbers = ['-2', '-2.5', '+1', '-1+1', '@SUM(A1)', '\uFF0D2', '\uFF0B1'];
    const rows = resultCsv(numbers.map((n, i) => ({ ...record(i, 'acknowledged', []), number: n }))).split('\n').slice(1, -1);
    expect(rows.map((r) => r.split(',')[2])).toEqual(['-2', '-2.5', '+1', "'-1+1", "'@SUM(A1)", "'\uFF0D2", "'\uFF0B1"]);
  });

  it('renders a large result file in parts, read from the journal, the same text as in one piece', async () => {
    const tmp = tempDir();
    const journal = await testJournal(tmp.path);
    try {
      const ids = Array.from({ length: 4_500 }, (_, i) => 10 + 2 * i);
      const exportId = await journal.beginExport({ workType: 'customerShipments', fileName: 'so_9.csv', records: ids.map((id) => ({ id, number: `SO-${id}` })) });
      await journal.markExportWritten(exportId);
      await journal.recordAcknowledgements(exportId, [{ id: 12, status: 'error', messages: ['=cancelled'] }, { id: 9_000, status: 'acknowledged', acknowledgedAt: '2026-03-01T08:00:00Z' }]);
      const parts: string[] = [];
      for await (const part of resultCsvParts(journal, exportId, 1_000)) parts.push(part);
      expect(parts).toHaveLength(1 + 5); // header, then 1,000 + 1,000 + 1,000 + 1,000 + 500 records
      expect(parts.join('')).toBe(resultCsv(await testHooks(journal).exportRecords(exportId)));
      expect(parts.join('').split('\n')).toHaveLength(4_500 + 2);
    } finally {
      await journal.close();
      tmp.remove();
    }
  });
});
