/**
 * The document key of a result-file row: the mapping's grouping key (an order number, say) when it has one,
 * otherwise what identifies the item for a person reading the result file — the SKU of an adjustment, the
 * reference of a cycle count, the id of a shipment.
 */
export function documentKey(endpoint: string, mappingKey: string, item: Record<string, unknown>): string {
  if (mappingKey) return mappingKey;
  if (endpoint === 'inventory.adjustments') return text(item.product_code);
  if (endpoint === 'inventory.counts') return text(item.reference) || text(item.date);
  return text(item.id);
}

// A module-level function, not a closure per call: this runs once per row (and tsx wraps each closure it creates).
function text(value: unknown): string {
  return value === undefined || value === null || value === '' ? '' : String(value);
}
