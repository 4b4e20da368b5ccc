import { describe, expect, it } from 'vitest';
import { READ_BACK_REQUESTS_IN_FLIGHT, requestsInFlight, UNASKABLE_REQUESTS_IN_FLIGHT } from './requests-in-flight.js';

describe('requests in flight of a file', () => {
  it('the job\'s, else the service\'s, else 8 for writes read back and 2 for those the service cannot be asked about', () => {
    const none = {};
    expect(requestsInFlight(none, none, 'customerShipments.ship')).toBe(READ_BACK_REQUESTS_IN_FLIGHT);
    expect(requestsInFlight(none, none, 'supplierShipments.receive')).toBe(READ_BACK_REQUESTS_IN_FLIGHT);
    expect(requestsInFlight(none, none, 'inventory.adjustments')).toBe(UNASKABLE_REQUESTS_IN_FLIGHT);
    expect(requestsInFlight(none, none, 'inventory.counts')).toBe(UNASKABLE_REQUESTS_IN_FLIGHT);
    expect([READ_BACK_REQUESTS_IN_FLIGHT, UNASKABLE_REQUESTS_IN_FLIGHT]).toEqual([8, 2]);
    expect(requestsInFlight({ requests_in_flight: 4 }, none, 'inventory.adjustments')).toBe(4);
    expect(requestsInFlight({ requests_in_flight: 4 }, { requests_in_flight: 1 }, 'customerShipments.ship')).toBe(1);
  });
});
