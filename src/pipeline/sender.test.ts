import { describe, expect, it } from 'vitest';
import { newsOf, toOutcome } from './sender.js';

describe('what the journal keeps of an answer', () => {
  it('drops empty fields and echoes of the request, keeps the fields that name the document', () => {
    const body = { product_code: 'SKU-1', quantity: 2, reference: 'R-1', company_code: 'ACME' };
    expect(newsOf({ product_code: 'SKU-1', reference: 'R-1', lot_number: null, move_id: 77, company_code: 'ACME' }, body)).toEqual({ move_id: 77 });
    // The service chose the company: that is news.
    expect(newsOf({ product_code: 'SKU-1', move_id: 78, company_code: 'GLOBEX' }, { product_code: 'SKU-1' })).toEqual({ move_id: 78, company_code: 'GLOBEX' });
    expect(newsOf({ id: 5, shipped_at: null, state: 'done' }, { id: 5 })).toEqual({ id: 5, shipped_at: null, state: 'done' });
    expect(newsOf({ reference: null }, {})).toBeUndefined();
  });

  it('an ok item read back from the service says so', () => {
    const outcome = toOutcome(3, { key: 5, index: 0, ok: true, verified: true, errors: [], returned: {} }, 'customerShipments.ship', 'SO-5', { id: 5 });
    expect(outcome).toEqual({ seq: 3, status: 'ok', result: { verified: 'read back from the service' } });
  });
});
