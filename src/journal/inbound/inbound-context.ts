import { createBlocks, type Blocks } from '../core/blocks.js';
import { stateError, type RequestRow } from '../core/rows.js';
import type { Fence } from '../leases/leases.js';
import type { SqlPort } from '../core/sql.js';

/**
 * What the inbound functions work on: the port (the journal's own, or a unit of work's), the clock, the item blocks
 * on that port, and in lease mode (leases.ts) the fence: every write for a file checks that this journal still holds
 * the file's lease.
 */
export interface InboundContext {
  readonly sql: SqlPort;
  readonly now: () => string;
  readonly blocks: Blocks;
  readonly fence?: Fence;
}

/** The block queries on the port `t` of a unit of work (the context's own blocks when it is bound to it). */
export function blocksOn(c: InboundContext, t: SqlPort): Blocks {
  return t === c.sql ? c.blocks : createBlocks(t);
}

/** A write for a file, as a unit of work (fenced in lease mode). */
export function write<T>(c: InboundContext, fn: (t: SqlPort) => Promise<T>): Promise<T> {
  return c.fence ? c.fence.write(fn) : c.sql.tx(fn);
}

/** Refuses a write for a request that is finished already (done, failed, uncertain, abandoned). */
export function requireOpen(row: RequestRow): void {
  if (row.status !== 'pending' && row.status !== 'sent') throw stateError(`request ${row.id} is already ${row.status}`);
}
