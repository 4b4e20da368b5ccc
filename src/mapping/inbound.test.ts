import { describe, expect, it } from 'vitest';
import { mapText } from '../../test/mapping/helpers.js';

const adj = `
document: inventory.adjustments
files: "*.csv"
dialect: { delimiter: "," }
request:
  fields:
    product_code: SKU
    quantity: { column: QTY, type: number }
    reason: NOTE
`;

describe('line numbers when line breaks first appear after many quote-free chunks', () => {
  it('counts a quoted LF and a lone CR that come late in the file', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `A${i},1,ok`);
    const s = await mapText(adj, `SKU,QTY,NOTE\n${rows.join('\n')}\nB,1,"two\nlines"\nC,1,lone\rcr\nD,x,\n`);
    expect(s.rejected).toEqual([{ key: '', lines: [3006], errors: ['in.csv, line 3006, column QTY: "x" is not a number'] }]);
  });
});
