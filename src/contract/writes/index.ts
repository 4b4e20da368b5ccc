import { z } from 'zod';
import type { WriteEndpointId } from '../endpoints.js';
import { receivedHint } from './common.js';
import { customerReturnsAcknowledge } from './customer-returns-acknowledge.js';
import { customerReturnsReceive } from './customer-returns-receive.js';
import { customerShipmentsAcknowledge } from './customer-shipments-acknowledge.js';
import { customerShipmentsChangeStatus } from './customer-shipments-change-status.js';
import { customerShipmentsFailed } from './customer-shipments-failed.js';
import { customerShipmentsShip } from './customer-shipments-ship.js';
import { inboundTransfersAcknowledge } from './inbound-transfers-acknowledge.js';
import { inboundTransfersReceive } from './inbound-transfers-receive.js';
import { inventoryAdjustments } from './inventory-adjustments.js';
import { inventoryCounts } from './inventory-counts.js';
import { outboundTransfersAcknowledge } from './outbound-transfers-acknowledge.js';
import { outboundTransfersShip } from './outbound-transfers-ship.js';
import { supplierShipmentsAcknowledge } from './supplier-shipments-acknowledge.js';
import { supplierShipmentsFailed } from './supplier-shipments-failed.js';
import { supplierShipmentsReceive } from './supplier-shipments-receive.js';
import type { WriteModule } from './types.js';

export * from './types.js';

/**
 * Every write endpoint of the contract, registered once (the order is the one of the mapping schema's `document`
 * enum). `satisfies` makes a write added to the contract's table a compile error until its module is here.
 */
const REGISTRY = {
  'customerShipments.ship': customerShipmentsShip,
  'customerShipments.changeStatus': customerShipmentsChangeStatus,
  'customerShipments.failed': customerShipmentsFailed,
  'customerShipments.acknowledge': customerShipmentsAcknowledge,
  'outboundTransfers.ship': outboundTransfersShip,
  'outboundTransfers.acknowledge': outboundTransfersAcknowledge,
  'inboundTransfers.receive': inboundTransfersReceive,
  'inboundTransfers.acknowledge': inboundTransfersAcknowledge,
  'supplierShipments.receive': supplierShipmentsReceive,
  'supplierShipments.failed': supplierShipmentsFailed,
  'supplierShipments.acknowledge': supplierShipmentsAcknowledge,
  'customerReturns.receive': customerReturnsReceive,
  'customerReturns.acknowledge': customerReturnsAcknowledge,
  'inventory.adjustments': inventoryAdjustments,
  'inventory.counts': inventoryCounts,
} as const satisfies { [K in WriteEndpointId]: WriteModule<K> };

export const WRITES: Readonly<Record<WriteEndpointId, WriteModule>> = REGISTRY;
export const WRITE_ENDPOINT_IDS = Object.keys(REGISTRY) as (keyof typeof REGISTRY)[];

export function isWriteEndpoint(id: string): id is WriteEndpointId {
  return Object.hasOwn(WRITES, id);
}

/** The module of a write endpoint named by a string (a journal row, a mapping); undefined for anything else. */
export function writeModule(endpoint: string): WriteModule | undefined {
  return isWriteEndpoint(endpoint) ? WRITES[endpoint] : undefined;
}

/**
 * Whether a request of the endpoint whose outcome is unknown (a crash, a lost answer) can be resolved without a
 * person: it may be repeated, or it is read back. Adjustments and counts can be neither: theirs stay uncertain.
 */
export function outcomeCanBeLearned(endpoint: string): boolean {
  const policy = writeModule(endpoint)?.policy;
  return policy === undefined || policy.retry !== 'unsafe' || policy.verify !== undefined;
}

/** Writes whose items carry a `warehouse` (the inventory writes), read from the contract's item schemas. */
const WAREHOUSE_SCOPED: ReadonlySet<string> = new Set(WRITE_ENDPOINT_IDS.filter((id) => {
  const item = WRITES[id].contract.item;
  return item instanceof z.ZodObject && Object.hasOwn(item.shape, 'warehouse');
}));

/**
 * Whether the endpoint's items name a warehouse: the service's configured `warehouse` fills it when the mapping
 * leaves it out (a token may cover several warehouses).
 */
export function takesWarehouse(endpoint: string): boolean {
  return WAREHOUSE_SCOPED.has(endpoint);
}

/** Whether a request of the endpoint is one object (a cycle count): a file maps into one document. */
export function isSingleObjectWrite(endpoint: string): boolean {
  return writeModule(endpoint)?.contract.style === 'single';
}

/**
 * The document key of a result-file row: the mapping's grouping key (an order number, say) when it has one,
 * otherwise what identifies the item for a person reading the result file — the SKU of an adjustment, the
 * reference of a cycle count, the id of a shipment.
 */
export function documentKey(endpoint: WriteEndpointId, mappingKey: string, item: Record<string, unknown>): string {
  return mappingKey || WRITES[endpoint].documentKey(item);
}

/** documentKey as the journal, the result file and a dry run show it: null when nothing identifies the document. */
export function documentName(endpoint: WriteEndpointId, mappingKey: string, item: Record<string, unknown> | undefined): string | null {
  return documentKey(endpoint, mappingKey, item ?? {}) || null;
}

/** What a person should check for an item whose outcome is unknown. */
export function uncertainHint(endpoint: string, key: string, body: Record<string, unknown> | null): string {
  const b = body ?? {};
  return (writeModule(endpoint)?.uncertainHint ?? receivedHint)(key, b);
}
