/**
 * The chaos test's input: inbound files of mixed document types built from the emulator's seed (the repository's
 * mappings and the dialects of samples/), each row carrying what the end checks need to find it again in the
 * service's state: an adjustment's unique reference, a count's reference, a shipment's or ASN's id.
 * Deterministic for a seed and a seed state of the emulator.
 */

/** mulberry32: a small seeded generator, so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (list) => list[Math.floor(next() * list.length)]!,
    shuffle: (list) => {
      const copy = [...list];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
  };
}

export interface Random {
  /** [0, 1) */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(list: readonly T[]): T;
  shuffle<T>(list: readonly T[]): T[];
}

export type Kind = 'adjustments' | 'count' | 'ship' | 'receipt' | 'duplicate' | 'rejected';

/** What one input line is expected to do in the service. */
export type LineExpectation =
  | { kind: 'adjustment'; reference: string; sku: string; quantity: number; sent: boolean }
  | { kind: 'count'; reference: string }
  | { kind: 'ship'; id: number; number: string }
  | { kind: 'receipt'; id: number; number: string };

export interface GeneratedFile {
  name: string;
  kind: Kind;
  bytes: Buffer;
  /** By 1-based physical line of the file; header and comment lines have none. */
  lines: Map<number, LineExpectation>;
  /** Rows (data lines) of the file. */
  rows: number;
  /** The file whose bytes a duplicate repeats. */
  original?: string;
}

export interface Plan {
  /** Adjustment files and their total of rows (sizes are drawn around rows / files). */
  adjustments: { files: number; rows: number };
  counts: { files: number; items: [number, number] };
  ships: { files: number; perFile: number };
  receipts: { files: number; perFile: number };
  duplicates: number;
  rejected: number;
}

/** What the generator needs of the emulator's state (GET /_admin/state?only=products,customer_shipments,supplier_shipments). */
export interface SeedState {
  products: Array<{ code: string; type: string; lot_tracked: boolean; serial_tracked: boolean }>;
  customer_shipments: SeedRecord[];
  supplier_shipments: SeedRecord[];
}

interface SeedRecord {
  id: number;
  number: string;
  warehouse_id: number;
  list_status: string;
  lines: Array<{ product_code: string; quantity: number; done_quantity?: number | null; lot_number: string | null }>;
}

/** A prefix that makes every reference of a run unique in the emulator (and recognisable in it). */
export function runTag(seed: number): string {
  return `CH${seed.toString(36).toUpperCase()}`;
}

export function generateFiles(seed: number, plan: Plan, state: SeedState): GeneratedFile[] {
  const random = seededRandom(seed);
  const tag = runTag(seed);
  const plainCodes = new Set(state.products.filter((p) => p.type === 'goods' || p.code.startsWith('SKU-')).filter((p) => !p.lot_tracked && !p.serial_tracked).map((p) => p.code));
  const plain = [...plainCodes].filter((c) => c.startsWith('SKU-')).sort();
  if (plain.length < 20) throw new Error(`the emulator's seed has only ${plain.length} plain goods`);
  const files: GeneratedFile[] = [];
  const pad = (n: number) => String(n).padStart(3, '0');

  // Adjustments (KORR: semicolon, windows-1252, dd.MM.yyyy), one move per row; about 1 % of the rows are refused by
  // the mapping ("3x" is not a number: never sent) and 1 % are notes (INFO: skipped).
  const mean = plan.adjustments.rows / Math.max(1, plan.adjustments.files);
  for (let f = 1; f <= plan.adjustments.files; f++) {
    const name = `KORR_${tag}_${pad(f)}.csv`;
    const count = Math.max(5, Math.round(mean * (0.2 + 1.6 * random.next())));
    const lines = new Map<number, LineExpectation>();
    const text = ['Artikel;Menge;Grund;Beleg;Datum;Charge;Mandant'];
    for (let r = 1; r <= count; r++) {
      const sku = random.pick(plain);
      const quantity = random.int(1, 3);
      const reference = `${tag}-${f}-${r}`;
      const draw = random.next();
      const bad = draw < 0.01;
      const note = !bad && draw < 0.02;
      text.push(`${sku};${bad ? `${quantity}x` : quantity};${note ? 'INFO' : 'Fund'};${reference};19.11.2026;;`);
      lines.set(text.length, { kind: 'adjustment', reference, sku, quantity, sent: !bad && !note });
    }
    files.push({ name, kind: 'adjustments', bytes: Buffer.from(`${text.join('\r\n')}\r\n`, 'latin1'), lines, rows: count });
  }

  // Cycle counts (no header, '#' comments, yyyyMMdd): one request per file, all or nothing.
  for (let f = 1; f <= plan.counts.files; f++) {
    const name = `COUNT_${tag}_${pad(f)}.csv`;
    const reference = `CC-${tag}-${f}`;
    const items = random.int(...plan.counts.items);
    const lines = new Map<number, LineExpectation>();
    const text = [`# cycle count ${reference}`];
    for (const sku of random.shuffle(plain).slice(0, items)) {
      text.push(`20261115,${reference},${sku},${random.int(0, 40)},`);
      lines.set(text.length, { kind: 'count', reference });
    }
    files.push({ name, kind: 'count', bytes: Buffer.from(`${text.join('\n')}\n`), lines, rows: items });
  }

  // Ship confirmations (comma, UTF-8; rows of one shipment together, in order): pending shipments of warehouse 1 whose
  // lines are plain goods, shipped whole; every third one with defer_unshipped and one unit short, which leaves a new
  // pending shipment (`-D1`) behind: new work for the export job while the run goes on.
  const shipments = random.shuffle(state.customer_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'pending' && s.lines.length > 0
    && s.lines.every((l) => plainCodes.has(l.product_code) && !l.lot_number && !(l.done_quantity ?? 0))));
  const needShipments = plan.ships.files * plan.ships.perFile;
  if (shipments.length < needShipments) throw new Error(`the emulator's seed has ${shipments.length} plain pending shipments, the plan needs ${needShipments}`);
  for (let f = 1; f <= plan.ships.files; f++) {
    const name = `SHIP_${tag}_${pad(f)}.csv`;
    const chosen = shipments.splice(0, plan.ships.perFile).sort((a, b) => a.number.localeCompare(b.number));
    const lines = new Map<number, LineExpectation>();
    const text = ['ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS'];
    for (const [i, s] of chosen.entries()) {
      const defer = i % 3 === 2 && s.lines.some((l) => l.quantity >= 2);
      let short = defer;
      for (const l of s.lines) {
        const quantity = short && l.quantity >= 2 ? l.quantity - 1 : l.quantity;
        if (quantity !== l.quantity) short = false;
        text.push(`${s.number},DHL,DHL_EXPRESS,${tag}T${s.id},${defer ? 'defer_unshipped' : ''},${l.product_code},${quantity},,`);
        lines.set(text.length, { kind: 'ship', id: s.id, number: s.number });
      }
    }
    files.push({ name, kind: 'ship', bytes: Buffer.from(`${text.join('\n')}\n`), lines, rows: lines.size });
  }

  // Goods receipts against supplier shipments (comma, UTF-8, '#' comments): every line received whole, closed.
  const asns = random.shuffle(state.supplier_shipments.filter((s) => s.warehouse_id === 1 && (s.list_status === 'pending' || s.list_status === 'open')
    && s.lines.length > 0 && s.lines.every((l) => plainCodes.has(l.product_code) && !(l.done_quantity ?? 0))));
  const needAsns = plan.receipts.files * plan.receipts.perFile;
  if (asns.length < needAsns) throw new Error(`the emulator's seed has ${asns.length} plain open supplier shipments, the plan needs ${needAsns}`);
  for (let f = 1; f <= plan.receipts.files; f++) {
    const name = `GR_${tag}_${pad(f)}.csv`;
    const chosen = asns.splice(0, plan.receipts.perFile);
    const lines = new Map<number, LineExpectation>();
    const text = ['# goods receipt', 'ASN,TPL_REF,CLOSE,SKU,RECEIVED,DAMAGED,LOT,EXPIRY,EPC'];
    for (const s of chosen) {
      for (const l of s.lines) {
        text.push(`${s.number},${tag}R${s.id},Y,${l.product_code},${l.quantity},,,,`);
        lines.set(text.length, { kind: 'receipt', id: s.id, number: s.number });
      }
    }
    files.push({ name, kind: 'receipt', bytes: Buffer.from(`${text.join('\n')}\n`), lines, rows: lines.size });
  }

  // Re-drops of adjustment files under another name: the same bytes are a duplicate, never applied again.
  const adjustmentFiles = files.filter((f) => f.kind === 'adjustments');
  for (let d = 1; d <= plan.duplicates; d++) {
    const original = adjustmentFiles[Math.floor(((d - 1) * adjustmentFiles.length) / Math.max(1, plan.duplicates))]!;
    files.push({ name: `KORR_${tag}_again_${pad(d)}.csv`, kind: 'duplicate', bytes: original.bytes, lines: original.lines, rows: original.rows, original: original.name });
  }

  // Files refused as a whole, before anything of them is read: empty (no header), and a name no mapping knows.
  for (let r = 1; r <= plan.rejected; r++) {
    const empty = r % 2 === 1;
    files.push({ name: empty ? `KORR_${tag}_empty_${pad(r)}.csv` : `NOTES_${tag}_${pad(r)}.csv`, kind: 'rejected', bytes: Buffer.from(empty ? '' : 'what,ever\n1,2\n'), lines: new Map(), rows: 0 });
  }
  return files;
}

/**
 * The order files are dropped in: shuffled, except that each duplicate comes after its original (a re-drop is
 * later than the drop it repeats).
 */
export function dropOrder(files: GeneratedFile[], random: Random): GeneratedFile[] {
  const firsts = random.shuffle(files.filter((f) => f.kind !== 'duplicate'));
  const order = [...firsts];
  for (const dup of files.filter((f) => f.kind === 'duplicate')) {
    const after = order.findIndex((f) => f.name === dup.original);
    order.splice(random.int(after + 1, order.length), 0, dup);
  }
  return order;
}
