import { describe, expect, it } from 'vitest';
import {
  customerShipmentListQuery, decimalString, endpoints, errorBody, inboundTransferListQuery, isoDate, isoDateTime,
  productList, toQueryString,
} from './index.js';

describe('primitives', () => {
  it('isoDate is a real calendar date in YYYY-MM-DD', () => {
    expect(isoDate.safeParse('2024-02-29').success).toBe(true);
    expect(isoDate.safeParse('2023-02-29').success).toBe(false);
    expect(isoDate.safeParse('2024-2-9').success).toBe(false);
    expect(isoDate.safeParse('2024-02-29T00:00:00Z').success).toBe(false);
  });
  it('isoDateTime carries a UTC offset', () => {
    expect(isoDateTime.safeParse('2026-11-22T03:00:00+00:00').success).toBe(true);
    expect(isoDateTime.safeParse('2026-11-22T03:00:00Z').success).toBe(true);
    expect(isoDateTime.safeParse('2026-11-22T03:00:00').success).toBe(false);
  });
  it('decimalString is a decimal written as a string', () => {
    expect(decimalString.safeParse('12.50').success).toBe(true);
    expect(decimalString.safeParse(12.5).success).toBe(false);
    expect(decimalString.safeParse('12,50').success).toBe(false);
  });
  it('error body has a status, code and message', () => {
    expect(errorBody.safeParse({ error: { status: 400, code: 'bad_request', message: 'x' } }).success).toBe(true);
    expect(errorBody.safeParse({ message: 'x' }).success).toBe(false);
  });
});

describe('queries', () => {
  it('parses strings from a URL and typed values to the same filters', () => {
    const fromUrl = customerShipmentListQuery.parse({ page: '2', ids: '1,2, 3', numbers: 'A,B' });
    const typed = customerShipmentListQuery.parse({ page: 2, ids: [1, 2, 3], numbers: ['A', 'B'] });
    expect(fromUrl).toEqual(typed);
    expect(fromUrl.status).toBe('pending');
    expect(inboundTransferListQuery.parse({}).status).toBe('all');
  });
  it('refuses page 0, bad ids and unknown statuses', () => {
    expect(customerShipmentListQuery.safeParse({ page: '0' }).success).toBe(false);
    expect(customerShipmentListQuery.safeParse({ ids: '1,x' }).success).toBe(false);
    expect(customerShipmentListQuery.safeParse({ status: 'all' }).success).toBe(false);
    expect(inboundTransferListQuery.safeParse({ status: 'done' }).success).toBe(false);
  });
  it('toQueryString joins arrays and drops undefined', () => {
    expect(toQueryString({ ids: [1, 2], status: 'open', page: undefined })).toBe('?ids=1%2C2&status=open');
    expect(toQueryString({})).toBe('');
  });
});

describe('endpoint table', () => {
  it('has the documented paths, methods and envelopes', () => {
    expect(endpoints['products.list'].envelopeKey).toBe('products');
    expect('products.count' in endpoints).toBe(false);
    expect(endpoints['customerReturns.count'].path).toBe('/v1/customer-return-shipments/count.json');
    expect(endpoints['customerShipments.changeStatus'].method).toBe('PATCH');
    expect(endpoints['customerShipments.changeStatus'].aliasMethods).toEqual(['POST']);
    expect(endpoints['customerShipments.ship'].style).toBe('fail-fast');
    expect(endpoints['inventory.adjustments'].bodyKey).toBe('adjustments');
    expect(endpoints['inboundTransfers.list'].queryRequired).toBe(true);
  });
  it('list responses use their envelope and tolerate extra fields', () => {
    expect(productList.safeParse({ products: [], has_more: false, extra: 1 }).success).toBe(true);
    expect(productList.safeParse({ data: [], has_more: false }).success).toBe(false);
  });
});
