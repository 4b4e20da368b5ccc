import type { InboundJob, ServiceConfig } from '../config/schema.js';
import { outcomeCanBeLearned } from '../contract/index.js';

/**
 * Requests in flight by default, by whether a request in doubt after a crash can be resolved without a person: 8
 * where the bridge reads the write back (or may repeat it), 2 where the service cannot be asked (each request in doubt
 * is batch_size rows checked by hand). The trade: docs/operations.md, "Requests in flight and rows in doubt".
 */
export const READ_BACK_REQUESTS_IN_FLIGHT = 8;
export const UNASKABLE_REQUESTS_IN_FLIGHT = 2;

/** The window of one file: the job's setting, else the service's, else the default for its kind of write. */
export function requestsInFlight(service: Pick<ServiceConfig, 'requests_in_flight'>, job: Pick<InboundJob, 'requests_in_flight'>, endpoint: string): number {
  return job.requests_in_flight ?? service.requests_in_flight
    ?? (outcomeCanBeLearned(endpoint) ? READ_BACK_REQUESTS_IN_FLIGHT : UNASKABLE_REQUESTS_IN_FLIGHT);
}
