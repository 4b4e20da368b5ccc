import { endpoints } from '../endpoints.js';
import { text } from './common.js';
import type { WriteModule } from './types.js';

function none(): undefined {
  return undefined;
}

function referenceOrDate(item: Record<string, unknown>): string {
  return text(item.reference) || text(item.date);
}

function hint(_key: string, b: Record<string, unknown>): string {
  return `check in the service whether a cycle count dated ${String(b.date ?? '?')}${b.reference ? ` with reference ${String(b.reference)}` : ''} exists before recording it again`;
}

/** A historical cycle count: one object for the whole file, never repeated (UNCERTAIN_OUTCOME after a lost answer). */
export const inventoryCounts: WriteModule<'inventory.counts'> = {
  contract: endpoints['inventory.counts'],
  section: 'Endpoints → Inventory',
  policy: { retry: 'unsafe' },
  kept: ['number'],
  outcomeKey: none,
  documentKey: referenceOrDate,
  uncertainHint: hint,
};
