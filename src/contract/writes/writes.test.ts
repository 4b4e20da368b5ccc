import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { endpointList } from '../endpoints.js';
import { documentKey, documentName, isSingleObjectWrite, RETURNED_FIELDS, takesWarehouse, uncertainHint, WRITE_ENDPOINT_IDS, WRITES } from './index.js';

describe('the write endpoint registry', () => {
  it('has one module for every write of the contract, and each module names its own contract entry', () => {
    const writes = endpointList.filter((e) => e.item !== undefined).map((e) => e.id);
    expect([...WRITE_ENDPOINT_IDS].sort()).toEqual(writes.sort());
    for (const id of WRITE_ENDPOINT_IDS) expect(WRITES[id].contract.id).toBe(id);
  });

  it('keeps only result columns the endpoint answers; reads back and checks untouched records through its own family', () => {
    for (const id of WRITE_ENDPOINT_IDS) {
      const m = WRITES[id];
      const answer = (m.contract as { responseItem?: z.ZodObject }).responseItem;
      if (id !== 'inventory.counts') expect(answer, id).toBeDefined();
      if (answer) for (const field of m.kept) expect(Object.keys(answer.shape), `${id} keeps ${field}`).toContain(field);
      for (const field of m.kept) expect(RETURNED_FIELDS).toContain(field);
      const family = id.slice(0, id.indexOf('.'));
      if (m.policy.verify) expect(m.policy.verify.list).toBe(`${family}.list`);
      if (m.untouched) {
        expect(m.untouched.list).toBe(`${family}.list`);
        expect(m.policy.retry).toBe('unsafe');
      }
      if (m.confirms) expect(m.confirms).toBe(family);
    }
    expect(WRITE_ENDPOINT_IDS.filter((id) => WRITES[id].confirms)).toEqual(WRITE_ENDPOINT_IDS.filter((id) => id.endsWith('.acknowledge')));
    expect(WRITE_ENDPOINT_IDS.filter((id) => !WRITES[id].policy.verify && WRITES[id].policy.retry === 'unsafe')).toEqual(['inventory.adjustments', 'inventory.counts']);
  });
});

describe('documentKey', () => {
  it('keeps the mapping grouping key', () => {
    expect(documentKey('customerShipments.ship', 'SO-1126', { id: 1126 })).toBe('SO-1126');
  });
  it('falls back to the SKU of an adjustment, the reference or date of a count, the id of a shipment', () => {
    expect(documentKey('inventory.adjustments', '', { product_code: 'SKU-1', quantity: 2 })).toBe('SKU-1');
    expect(documentKey('inventory.counts', '', { reference: 'CC-7', date: '2026-11-20' })).toBe('CC-7');
    expect(documentKey('inventory.counts', '', { date: '2026-11-20' })).toBe('2026-11-20');
    expect(documentKey('customerShipments.changeStatus', '', { id: 1001, picking_status: 'done' })).toBe('1001');
    expect(documentKey('customerShipments.failed', '', {})).toBe('');
    // as stored and shown: null when nothing identifies the document, also when nothing of it was mapped
    expect(documentName('inventory.adjustments', '', { product_code: 'SKU-1' })).toBe('SKU-1');
    expect(documentName('customerShipments.failed', '', {})).toBeNull();
    expect(documentName('inventory.adjustments', '', undefined)).toBeNull();
  });
});

describe('uncertainHint', () => {
  it('says what to check per endpoint', () => {
    expect(uncertainHint('inventory.adjustments', 'SKU-1', { product_code: 'SKU-1', quantity: -3, reference: 'R-9' })).toBe(
      'check the stock of SKU-1 in the service (adjustment of -3, reference R-9) before sending it again: it may already be booked',
    );
    expect(uncertainHint('inventory.counts', '', { date: '2026-11-19' })).toContain('a cycle count dated 2026-11-19 exists');
    expect(uncertainHint('outboundTransfers.ship', '', { id: 7 })).toBe('check whether id 7 is shipped in the service (a split shipment may exist) before shipping it again');
    expect(uncertainHint('customerReturns.receive', 'RMA-1', { id: 7 })).toBe('check whether RMA-1 was received in the service before receiving it again');
  });

  it('reads from the contract which writes name a warehouse and which take one object a request', () => {
    expect(WRITE_ENDPOINT_IDS.filter(takesWarehouse).sort()).toEqual(['inventory.adjustments', 'inventory.counts']);
    expect(WRITE_ENDPOINT_IDS.filter(isSingleObjectWrite)).toEqual(['inventory.counts']);
    expect(takesWarehouse('customerShipments.list')).toBe(false);
  });
});
