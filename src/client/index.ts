export { WisClient, createClient, isFatalClientError, type ClientOptions, type CreateClientOptions, type Family, type MethodOf } from './client.js';
export { readSecret, redact, type SecretSource } from '../secret.js';
export type { ClientEvent, RetryClass, CallOutcome } from './transport.js';
export { pageOfBody, pageOfText, type DecodedPage, type Page, type PageDecoder, type RawPage } from './list.js';
export type { WritePolicy, VerifySpec } from '../contract/index.js';
export type {
  BatchEndpointId, CallOptions, CountEndpointId, FailFastEndpointId, FiltersOf, ItemOf, ListEndpointId, ListOptions, RecordOf, ResultOf, WriteOptions, WriteOutcome,
} from './types.js';
export { ApiReferenceIds, type ApiReferenceIdsOptions } from './references.js';
export { backoffDelay, parseRetryAfter, sleep } from './backoff.js';
export { IDS_PER_QUERY } from './safety.js';
