import { describe, expect, it } from 'vitest';
import { countResponse, customerShipmentList } from '../contract/index.js';
import { isWisbridgeError } from '../errors.js';
import { backoffDelay, parseRetryAfter } from './backoff.js';
import { parseResponse } from './validate.js';

describe('parseResponse', () => {
  it('names the endpoint, the field path and the truncated value', () => {
    let caught: unknown;
    try {
      parseResponse('customerShipments.list', customerShipmentList, { data: [{ id: 'x'.repeat(500) }], has_more: false });
    } catch (error) {
      caught = error;
    }
    expect(isWisbridgeError(caught, 'CONTRACT_VIOLATION')).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain('customerShipments.list');
    expect(message).toContain('data.0.id');
    expect(message.length).toBeLessThan(400);
  });

  it('returns the parsed body when valid', () => {
    expect(parseResponse('customerShipments.count', countResponse, { count: 3 })).toEqual({ count: 3 });
  });
});

describe('backoff', () => {
  it('grows exponentially within [d/2, d] and is capped', () => {
    const opts = { baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelay(1, { ...opts, random: () => 0 })).toBe(50);
    expect(backoffDelay(3, { ...opts, random: () => 0.999 })).toBeLessThanOrEqual(400);
    expect(backoffDelay(3, { ...opts, random: () => 0 })).toBe(200);
    expect(backoffDelay(20, { ...opts, random: () => 0.999 })).toBeLessThanOrEqual(1_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
