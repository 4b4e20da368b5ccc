import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { COMPILED_PACKAGE_DEPTH, endpoints, shipRequestItem } from '../contract/index.js';
import { INBOUND_DOCUMENTS, type InboundDocument } from './definition-schema.js';
import { contractTarget } from './validate.js';

// The mappings validate with compiled schemas (fastValidator); results and errors must be the contract's own.
const same = (fast: { safeParse(v: unknown): z.ZodSafeParseResult<unknown> }, schema: z.ZodType, value: unknown) => {
  const a = fast.safeParse(value);
  const b = schema.safeParse(value);
  expect(a.success).toBe(b.success);
  if (a.success && b.success) expect(a.data).toEqual(b.data);
  else expect(a.error!.issues).toEqual(b.error!.issues);
};

const text = fc.oneof(fc.constantFrom('', 'A', 'UPS', 'DHL', 'EUR', 'eur', 'x'.repeat(256)), fc.string({ maxLength: 4 }));
const num = fc.oneof(fc.constantFrom(0, 1, 2, -1, 1.5, 2 ** 53), fc.double({ noNaN: false }));
const scalar = fc.oneof(text, num, fc.boolean(), fc.constant(undefined), fc.constant(null));
const line = fc.record({
  product_code: fc.oneof(text, scalar), product_id: fc.oneof(num, scalar), sale_line_id: num, quantity: fc.oneof(num, scalar),
  lot: fc.oneof(fc.record({ number: text }), scalar), serial_numbers: fc.array(text, { maxLength: 2 }), extra: scalar,
}, { requiredKeys: [] });
const lines = fc.oneof(fc.array(line, { maxLength: 3 }), scalar);
const pkg: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  pkg: fc.record({
    tracking_number: text, medium: text, items: lines,
    consumables: fc.array(fc.record({ product_code: text, quantity: num }, { requiredKeys: [] }), { maxLength: 2 }),
    children: fc.oneof({ depthSize: 'small', maxDepth: COMPILED_PACKAGE_DEPTH + 2 }, fc.constant(undefined), fc.array(tie('pkg'), { maxLength: 2 })),
  }, { requiredKeys: [] }),
})).pkg;
/** A package nested `depth` levels deep (children of children …), valid at every level. */
const nested = (depth: number): unknown => (depth === 1 ? { items: [{ product_code: 'A', quantity: 1 }] } : { children: [nested(depth - 1)] });
const shipItem = fc.record({
  id: fc.oneof(fc.integer({ min: -1, max: 5 }), scalar), carrier: text, carrier_code: text, carrier_service: text, carrier_service_code: text,
  cost: num, cost_currency_code: text, ship_strategy: fc.constantFrom('defer_unshipped', 'ship_as_available', 'ship_all_together', 'later'),
  split: fc.oneof(fc.boolean(), scalar), lines, packages: fc.oneof(fc.array(pkg, { maxLength: 2 }), scalar), unknown: scalar,
}, { requiredKeys: [] });

describe('compiled contract validation (fastValidator) gives the contract schemas\' results and errors', () => {
  it('ship items: any shape, packages nested below and beyond the compiled depth', () => {
    const fast = contractTarget('customerShipments.ship').schema;
    fc.assert(fc.property(shipItem, (item) => same(fast, shipRequestItem, item)), { numRuns: 2000 });
    for (let depth = 1; depth <= COMPILED_PACKAGE_DEPTH + 2; depth++) {
      same(fast, shipRequestItem, { id: 1, packages: [nested(depth)] });
      same(fast, shipRequestItem, { id: 1, packages: [{ ...(nested(depth) as object), items: [] }] });
      expect(fast.safeParse({ id: 1, packages: [nested(depth)] }).success).toBe(true);
    }
  });
  it('every inbound document: generated objects', () => {
    const value = fc.dictionary(fc.constantFrom('id', 'product_code', 'quantity', 'reason', 'date', 'sku', 'received_quantity', 'lines', 'items', 'picking_status', 'error', 'carrier', 'carrier_service', 'tracking_number'),
      fc.oneof(scalar, fc.constantFrom('2026-11-20', '2026-02-30', 'done'), fc.array(fc.dictionary(fc.constantFrom('sku', 'product_code', 'quantity', 'received_quantity', 'lot_number', 'lot_expiry_date'), fc.oneof(scalar, fc.constant('2026-11-20'))), { maxLength: 2 })));
    for (const document of INBOUND_DOCUMENTS as readonly InboundDocument[]) {
      const schema = (endpoints[document] as { item: z.ZodType }).item;
      const fast = contractTarget(document).schema;
      fc.assert(fc.property(value, (v) => same(fast, schema, v)), { numRuns: 300 });
    }
  });
});
