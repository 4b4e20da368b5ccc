import { WisbridgeError } from '../errors.js';
import type { ItemStatus } from '../journal/index.js';

// The row statuses `status --file` filters by, apart from file-rows.ts, which loads the pipeline: `wisbridge status`
// checks --status before it knows whether it needs that.
export const ROW_STATUSES: readonly ItemStatus[] = ['ok', 'error', 'uncertain', 'skipped', 'sent', 'pending'];

/** Parses `--status error,uncertain` into row statuses (USAGE error on an unknown one). */
export function parseStatuses(value: string | undefined): ItemStatus[] | undefined {
  if (value === undefined) return undefined;
  const statuses = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = statuses.filter((s) => !ROW_STATUSES.includes(s as ItemStatus));
  if (unknown.length > 0 || statuses.length === 0) {
    throw new WisbridgeError('USAGE', `--status takes row statuses separated by commas (${ROW_STATUSES.join(', ')}), got "${value}"`);
  }
  return statuses as ItemStatus[];
}
