import { describe, expect, it } from 'vitest';
import { keptOf, newsOf, toOutcome } from './outcomes.js';

describe('what the journal keeps of an answer', () => {
  it('drops empty fields and echoes of the request, keeps the fields that name the document', () => {
    const body = { product_code: 'SKU-1', quantity: 2, reference: 'R-1', company_code: 'ACME' };
    const adjustment = keptOf('inventory.adjustments');
    expect(newsOf({ product_code: 'SKU-1', reference: 'R-1', lot_number: null, move_id: 77, company_code: 'ACME' }, body, adjustment)).toEqual({ move_id: 77 });
    // The service chose the company: that is news.
    expect(newsOf({ product_code: 'SKU-1', move_id: 78, company_code: 'GLOBEX' }, { product_code: 'SKU-1' }, adjustment)).toEqual({ move_id: 78, company_code: 'GLOBEX' });
    expect(newsOf({ id: 5, shipped_at: null, state: 'done' }, { id: 5 }, keptOf('customerShipments.ship'))).toEqual({ id: 5, shipped_at: null, state: 'done' });
    expect(newsOf({ reference: null }, {}, adjustment)).toBeUndefined();
    // Each write keeps the columns its own answer fills: an adjustment's echoed id is not one of them.
    expect(newsOf({ id: 5, move_id: 9 }, { id: 5 }, adjustment)).toEqual({ move_id: 9 });
  });

  it('an ok item read back from the service says so', () => {
    const outcome = toOutcome(3, { key: 5, index: 0, ok: true, verified: true, errors: [], returned: {} }, 'customerShipments.ship', 'SO-5', { id: 5 });
    expect(outcome).toEqual({ seq: 3, status: 'ok', result: { verified: 'read back from the service' } });
  });
});
