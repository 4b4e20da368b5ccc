import type { BatchEndpointId, WisClient, WriteOptions, WriteOutcome } from '../client/index.js';

/**
 * `client.write` for the pipeline's request bodies: mapped rows (or the journal's copy of them) for an endpoint known
 * only at run time. The mapping checked every body against its endpoint's item schema, so they are sent unchecked.
 */
export function writeBodies(client: WisClient, endpoint: string, bodies: readonly Record<string, unknown>[], options: WriteOptions): Promise<WriteOutcome[]> {
  // eslint-disable-next-line no-restricted-syntax -- for a run-time endpoint the item type is the intersection of every write's items: checked by the mapping instead
  return client.write(endpoint as BatchEndpointId, bodies as never, { ...options, validate: false }) as Promise<WriteOutcome[]>;
}
