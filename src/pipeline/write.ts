import type { BatchEndpointId, WriteOptions, WriteOutcome } from '../client/index.js';
import type { SenderContext } from './types.js';

/**
 * `client.write` for the pipeline's request bodies: mapped rows (or the journal's copy of them) for an endpoint known
 * only at run time. The mapping checked every body against its endpoint's item schema, so they are sent unchecked.
 * Under a lease, each request waits until the lease is fresh, each attempt (retries too) goes out only while it still
 * is, and the write is aborted when the lease is lost.
 */
export function writeBodies(ctx: Pick<SenderContext, 'client' | 'lease'>, endpoint: string, bodies: readonly Record<string, unknown>[], options: WriteOptions): Promise<WriteOutcome[]> {
  const { lease } = ctx;
  const leased: WriteOptions = lease ? { signal: lease.signal, beforeSend: () => lease.ready(), beforeAttempt: () => lease.check() } : {};
  // eslint-disable-next-line no-restricted-syntax -- for a run-time endpoint the item type is the intersection of every write's items: checked by the mapping instead
  return ctx.client.write(endpoint as BatchEndpointId, bodies as never, { ...options, ...leased, validate: false }) as Promise<WriteOutcome[]>;
}
