import type { Logger } from 'pino';
import type { Store } from './store.js';

export interface WriteContext {
  store: Store;
  /** Warehouses of the caller's token. */
  scope: number[];
  today: string;
  baseUrl: string;
  secret: string;
  log: Logger;
  /** Logs a deprecation warning (and keeps it for GET /_admin/state). */
  deprecated(field: string, message: string): void;
}

export type ItemHandler = (ctx: WriteContext, item: any) => Record<string, unknown>;
