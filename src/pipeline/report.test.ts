import { describe, expect, it } from 'vitest';
import { exitCodeOf, ProgressBar, summaryTable } from './report.js';
import type { FileReport } from './types.js';

const file = (over: Partial<FileReport>): FileReport => ({ job: 'j', file: 'F.csv', outcome: 'done', rows: { ok: 2, error: 0, skipped: 1, uncertain: 0 }, requests: 1, ...over });

describe('progress and summary', () => {
  it('draws a progress bar with rows/s only when enabled (a TTY)', () => {
    let out = '';
    const stream = { write: (s: string) => ((out += s), true), columns: 100 } as unknown as NodeJS.WriteStream;
    new ProgressBar(stream, false).update({ file: 'A.csv', rows: 10, bytes: 5, size: 10 });
    expect(out).toBe('');
    const bar = new ProgressBar(stream, true);
    bar.update({ file: 'A.csv', rows: 1234, bytes: 5, size: 10 });
    expect(out).toMatch(new RegExp(String.raw`^\rA\.csv \[#{12}\.{12}\] {2}50% 1,234 rows [\d,]+ rows\/s\x1b\[K$`));
    bar.done();
    expect(out.endsWith('\r\x1b[K')).toBe(true);
  });
  it('sums rows by status and sets the exit code', () => {
    const reports = [file({}), file({ file: 'B.csv', outcome: 'failed', rows: { ok: 1, error: 2, skipped: 0, uncertain: 1 } })];
    const table = summaryTable(reports).split('\n');
    expect(table[0]).toMatch(/^job\s+file\s+outcome\s+ok\s+error\s+skipped\s+uncertain\s+requests/);
    expect(table.at(-1)).toMatch(/^total\s+2 file\(s\)\s+3\s+2\s+1\s+1\s+2$/);
    expect(exitCodeOf([file({})])).toBe(0);
    expect(exitCodeOf(reports)).toBe(1);
    expect(exitCodeOf([file({ outcome: 'rejected', rows: { ok: 0, error: 0, skipped: 0, uncertain: 0 } })])).toBe(1);
    expect(exitCodeOf([file({ outcome: 'duplicate' })])).toBe(0);
  });
});
