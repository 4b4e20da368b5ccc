/**
 * The documents an export mapping writes (a work list of the service's records); every other document is an API
 * write an inbound mapping feeds. A module of its own, without the definition's schema: what a mapping is, by its
 * document, is read without building that schema (mapping-base.ts).
 */
export const EXPORT_DOCUMENTS = [
  'customerShipments.list', 'outboundTransfers.list', 'inboundTransfers.list', 'supplierShipments.list', 'customerReturns.list', 'products.list',
] as const;
