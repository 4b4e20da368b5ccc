/**
 * The document key of a result-file row: the mapping's grouping key (an order number, say) when it has one,
 * otherwise what identifies the item for a person reading the result file — the SKU of an adjustment, the
 * reference of a cycle count, the id of a shipment.
 */
export function documentKey(endpoint: string, mappingKey: string, item: Record<string, unknown>): string {
  if (mappingKey) return mappingKey;
  const pick = (...fields: string[]) => {
    for (const f of fields) if (item[f] !== undefined && item[f] !== null && item[f] !== '') return String(item[f]);
    return '';
  };
  if (endpoint === 'inventory.adjustments') return pick('product_code');
  if (endpoint === 'inventory.counts') return pick('reference', 'date');
  return pick('id');
}
