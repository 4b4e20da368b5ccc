// The X12 files of the benches, written as a partner sends them ('*', '>', '~' and a line break after each segment).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const ISA = 'ISA*00*          *00*          *ZZ*NWLWMS         *ZZ*WISBRIDGE      *261120*2305*U*00401*000004711*0*P*>~\n';

/** Writes `rows` lines as sets of an interchange: `set(s)` gives a set's head segments, `line(row, l)` a line's. */
async function writeSets(file: string, functionalId: string, id: string, rows: number, perSet: number, head: (s: number) => string[], line: (row: number, l: number) => string[], tail: string[] = []): Promise<void> {
  const out = createWriteStream(file);
  const sets = Math.ceil(rows / perSet);
  let chunk = `${ISA}GS*${functionalId}*NWLWMS*WISBRIDGE*20261120*2305*1*X*004010~\n`;
  let row = 0;
  for (let s = 1; s <= sets; s++) {
    const control = String(s).padStart(4, '0');
    const segments = [`ST*${id}*${control}`, ...head(s)];
    for (let l = 1; l <= perSet && row < rows; l++, row++) segments.push(...line(row, l));
    segments.push(...tail);
    chunk += `${segments.join('~\n')}~\nSE*${segments.length + 1}*${control}~\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(`${chunk}GE*${sets}*1~\nIEA*1*000004711~\n`);
  await once(out, 'finish');
}

/** A 947 of `rows` W19 lines (LX + W19 each) in sets of `perSet`: the adjustments `skus[row % length]`, quantity 1 + row % 5. */
export function write947(file: string, rows: number, skus: readonly string[], perSet = 1000): Promise<void> {
  return writeSets(file, 'AW', '947', rows, perSet,
    (s) => [`W15*20261119*B-${s}`, 'N1*DE*ACME CORPORATION*91*ACME'],
    (row, l) => [`LX*${l}`, `W19*AA*${1 + (row % 5)}*EA**VN*${skus[row % skus.length]}`]);
}

/** A 945 of `rows` W12 lines (LX + W12 each), one set per order of `perSet` lines (order SO-n for set n). */
export function write945(file: string, rows: number, skus: readonly string[], perSet = 4): Promise<void> {
  return writeSets(file, 'SW', '945', rows, perSet,
    (s) => [`W06*F*SO-${s}*20261120*SHP-${s}`, 'N1*ST*ACME STORE 12*9*0614141000005', `N9*CN*JD${s}`, 'W27*M*DHLC*DHL EXPRESS'],
    (row, l) => [`LX*${l}`, `W12*CC*${(row % 9) + 1}*${(row % 9) + 1}**EA**VN*${skus[row % skus.length]}`],
    ['W03*8*12.5*LB']);
}

/**
 * The rows of write947 as CSV (SKU,QTY,REASON,REF,DATE,COMPANY,LOT), and a CSV mapping giving the same requests as the
 * shipped 947 mapping gives of them (the same transforms, reason table and date format): the X12 path against the CSV
 * path on the same rows, the same requests sent.
 */
export async function write947AsCsv(file: string, rows: number, skus: readonly string[], perSet = 1000): Promise<void> {
  const out = createWriteStream(file);
  let chunk = 'SKU,QTY,REASON,REF,DATE,COMPANY,LOT\n';
  for (let row = 0; row < rows; row++) {
    chunk += `${skus[row % skus.length]},${1 + (row % 5)},AA,B-${Math.floor(row / perSet) + 1},20261119,ACME,\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

export const ADJUSTMENTS_947_CSV_MAPPING = [
  'document: inventory.adjustments', 'files: "ADJ_*.csv"',
  'tables:', '  w19_reason: { "05": Product put on hold, "07": Product dumped or destroyed, "51": Unable-to-locate product located, "55": Product taken off hold, AA: Physical count, AU: Damaged in facility, AV: Damaged in transit, AY: Receipt error }',
  'request:', '  fields:',
  '    product_code: { column: SKU, transforms: [trim, upper] }',
  '    quantity: { column: QTY, type: number }',
  '    reason: { column: REASON, transforms: [{ lookup: { table: w19_reason } }] }',
  '    reference: REF',
  '    date: { column: DATE, type: date, format: yyyyMMdd }',
  '    lot_number: LOT',
  '    company_code: COMPANY', '',
].join('\n');
