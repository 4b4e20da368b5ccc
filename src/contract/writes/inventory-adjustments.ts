import { endpoints } from '../endpoints.js';
import { text } from './common.js';
import type { WriteModule } from './types.js';

function productCode(item: unknown): string | undefined {
  const code = (item as { product_code?: unknown } | null)?.product_code;
  return typeof code === 'string' ? code : undefined;
}

function sku(item: Record<string, unknown>): string {
  return text(item.product_code);
}

function hint(key: string, b: Record<string, unknown>): string {
  return `check the stock of ${String(b.product_code ?? key)} in the service (adjustment of ${String(b.quantity ?? '?')}${b.reference ? `, reference ${String(b.reference)}` : ''}) before sending it again: it may already be booked`;
}

/**
 * Stock adjustments (per item). Never repeated and never verifiable: no key makes an adjustment idempotent and the
 * interface cannot list them, so an unknown outcome stays uncertain with what to check. Items are named by SKU.
 */
export const inventoryAdjustments: WriteModule<'inventory.adjustments'> = {
  contract: endpoints['inventory.adjustments'],
  section: 'Endpoints → Inventory',
  policy: { retry: 'unsafe' },
  kept: ['move_id'],
  outcomeKey: productCode,
  documentKey: sku,
  uncertainHint: hint,
};
