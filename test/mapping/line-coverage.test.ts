import { describe, expect, it } from 'vitest';
import { mapInbound } from '../../src/mapping/index.js';
import { mappingOf, sourceOf } from './helpers.js';

// The result file has one row per line that an outcome covers. This pins down exactly which lines have none
// (docs/pipeline.md, "Result file"): the skipped prefix, the header, comment lines and empty or blank lines.

const adjustments = (dialect: string) => `
document: inventory.adjustments
files: "*.csv"
dialect: { delimiter: ";", skip_lines: 1, ${dialect} }
skip:
  - { column: REASON, equals: INFO }
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number }, reason: REASON }
`;

/** Every line some outcome covers, in order. */
async function coveredLines(yaml: string, text: string): Promise<number[]> {
  const lines: number[] = [];
  for await (const o of mapInbound(sourceOf(text), mappingOf(yaml), { fileName: 'in.csv' })) {
    if (o.kind === 'batch') for (const d of o.documents) lines.push(...d.lines);
    else if (o.kind === 'rejected') lines.push(...o.lines);
    else lines.push(o.line);
  }
  return lines.sort((a, b) => a - b);
}

describe('which input lines get a result row', () => {
  const file = [
    'Stock report 20.11.2026', // 1: skip_lines
    'SKU;QTY;REASON', //           2: header
    'A;1;count', //                3: ok
    '# checked by J.', //          4: comment
    '', //                         5: empty
    ';;', //                       6: blank cells
    'B;x;count', //                7: rejected
    'C;0;INFO', //                 8: skipped by the mapping
    '"D', //                       9: a quoted field over two lines
    'E";2;count', //              10
    '',
  ].join('\n');

  it('every line holding data gets one (rows, rejected rows, skipped rows, each line of a multi-line record); prefix, header, comment and empty lines get none', async () => {
    expect(await coveredLines(adjustments('comment: "#"'), file)).toEqual([3, 7, 8, 9, 10]);
  });
  it('with skip_empty_lines: false an empty line is a row like any other (and fails as such)', async () => {
    const noComment = file.replace('# checked by J.', 'F;3;count');
    expect(await coveredLines(adjustments('skip_empty_lines: false'), noComment)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
