import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportBytes, items, mapText, mappingOf } from './helpers.js';

// An export mapping and the inbound mapping that reads its files back: API-shaped records → CSV → requests.
const dialects = [
  { delimiter: ',', encoding: 'utf-8', bom: false, decimal: '.', format: 'yyyy-MM-dd' },
  { delimiter: ';', encoding: 'windows-1252', bom: false, decimal: ',', format: 'dd.MM.yyyy' },
  { delimiter: ';', encoding: 'utf-8', bom: true, decimal: ',', format: 'yyyyMMdd' },
  { delimiter: '\t', encoding: 'iso-8859-1', bom: false, decimal: '.', format: 'MM/dd/yyyy' },
] as const;

const pair = (d: (typeof dialects)[number], escape: boolean) => {
  const dialect = `dialect: { delimiter: ${JSON.stringify(d.delimiter)}, encoding: ${d.encoding}, bom: ${d.bom}, escape_formulas: ${escape} }`;
  const out = mappingOf(`
document: customerShipments.list
files: "*.csv"
${dialect}
export:
  rows: lines
  columns:
    - { name: REF, path: number }
    - { name: REASON, path: customer.name }
    - { name: SKU, path: line.product.code }
    - { name: QTY, path: line.quantity, type: number, decimal: "${d.decimal}", escape_formulas: false }
    - { name: DATE, path: planned_date, type: date, format: "${d.format}" }
`);
  const back = mappingOf(`
document: inventory.adjustments
files: "*.csv"
${dialect.replace(', bom: true', '').replace(', bom: false', '')}
request:
  fields:
    reference: REF
    reason: REASON
    product_code: SKU
    quantity: { column: QTY, type: number, decimal: "${d.decimal}" }
    date: { column: DATE, type: date, format: "${d.format}" }
`);
  return { out, back };
};

// Text the encodings can carry: printable Latin-1 plus quotes, delimiters, CR, LF and tabs.
const latin = fc.string({ unit: fc.constantFrom(...'aZ09 ,;"\'\t\r\n=+-@#éüßÄ€|'.split('').filter((c) => c !== '€')), minLength: 1, maxLength: 12 });
const nonBlank = latin.filter((s) => s.trim() === s && s.trim() !== '');
const date = fc.date({ min: new Date('1971-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((x) => x.toISOString().slice(0, 10));
const quantity = fc.oneof(fc.integer({ min: -100000, max: 100000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((x) => Math.round(x * 1000) / 1000))
  .filter((q) => q !== 0 && !Object.is(q, -0));

const line = fc.record({ sku: nonBlank, quantity });
const record = fc.record({ number: nonBlank, reason: nonBlank, date, lines: fc.array(line, { minLength: 1, maxLength: 3 }) });

describe('round trip: export mapping then import mapping gives the records back', () => {
  for (const d of dialects) {
    it(`${d.delimiter === '\t' ? 'tab' : d.delimiter} / ${d.encoding}${d.bom ? ' + BOM' : ''} / ${d.format}, formulas not escaped`, async () => {
      const { out, back } = pair(d, false);
      await fc.assert(fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 5 }), async (recs) => {
        const api = recs.map((r) => ({ number: r.number, customer: { name: r.reason }, planned_date: r.date, lines: r.lines.map((l) => ({ product: { code: l.sku }, quantity: l.quantity })) }));
        const bytes = await exportBytes(out, api);
        const s = await mapText(back, bytes);
        expect(s.rejected).toEqual([]);
        const want = recs.flatMap((r) => r.lines.map((l) => ({ reference: r.number, reason: r.reason, product_code: l.sku, quantity: l.quantity, date: r.date })));
        expect(items(s)).toEqual(want);
      }), { numRuns: 60 });
    });
  }
  it('with formula escaping on, values that do not look like formulas (plain signed numbers included) round-trip and the others come back neutralized', async () => {
    const { out, back } = pair(dialects[0], true);
    await fc.assert(fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 4 }), async (recs) => {
      const api = recs.map((r) => ({ number: r.number, customer: { name: r.reason }, planned_date: r.date, lines: r.lines.map((l) => ({ product: { code: l.sku }, quantity: l.quantity })) }));
      const s = await mapText(back, await exportBytes(out, api));
      // A plain signed number is kept; anything else starting like a formula comes back with its leading quote.
      const neutral = (v: string) => (/^[=+\-@\t\r]/.test(v) && !/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(v) ? `'${v}` : v);
      const want = recs.flatMap((r) => r.lines.map((l) => ({ reference: neutral(r.number), reason: neutral(r.reason), product_code: neutral(l.sku), quantity: l.quantity, date: r.date })));
      expect(items(s)).toEqual(want);
    }), { numRuns: 60 });
  });
});
