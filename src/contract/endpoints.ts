import type { z } from 'zod';
import * as q from './queries.js';
import * as rq from './requests.js';
import * as rs from './responses.js';
import * as r from './resources.js';

export type HttpMethod = 'GET' | 'PUT' | 'PATCH' | 'POST';
/**
 * list / count: GET with filters. per-item: 200, or 207 with per-item errors. fail-fast: 400 on any item
 * problem and nothing changes. single: one object in, one object out (cycle counts, SSCC labels).
 */
export type EndpointStyle = 'list' | 'count' | 'per-item' | 'fail-fast' | 'single';

export interface EndpointDef {
  id: string;
  method: HttpMethod;
  /** Extra methods accepted on the same path (POST for callers that cannot send PATCH). */
  aliasMethods?: readonly 'POST'[];
  /** Path under the base URL; `{shipment_id}` is a path parameter. */
  path: string;
  style: EndpointStyle;
  query?: z.ZodObject;
  /** Inbound-transfer list: a request without any query parameter is a 400. */
  queryRequired?: boolean;
  body?: z.ZodType;
  bodyKey?: 'shipments' | 'adjustments';
  item?: z.ZodType;
  response: z.ZodType;
  envelopeKey?: 'data' | 'products';
  record?: z.ZodType;
  responseItem?: z.ZodType;
}

const list = <Q extends z.ZodObject, R extends z.ZodType, E extends 'data' | 'products'>(id: string, path: string, query: Q, envelopeKey: E, record: R) =>
  ({ id, method: 'GET', path, style: 'list', query, envelopeKey, record, response: rs.listResponse(envelopeKey, record) }) as const;
const count = <Q extends z.ZodObject>(id: string, path: string, query: Q) =>
  ({ id, method: 'GET', path, style: 'count', query: query.omit({ page: true }), response: rs.countResponse }) as const;
const write = <I extends z.ZodType, R extends z.ZodType, S extends 'per-item' | 'fail-fast'>(
  id: string, method: 'PUT' | 'PATCH' | 'POST', path: string, style: S, item: I, responseItem: R, aliasPost = false,
) =>
  ({
    id, method, path, style, item, responseItem, bodyKey: 'shipments',
    body: rq.shipmentsBody(item), response: rs.shipmentsResponse(responseItem),
    ...(aliasPost ? { aliasMethods: ['POST'] as const } : {}),
  }) as const;

const CS = '/v1/customer-shipments';
const OT = '/v1/outbound-transfers';
const IT = '/v1/inbound-transfers';
const SS = '/v1/supplier-shipments';
const CR = '/v1/customer-return-shipments';

/**
 * Every endpoint of the interface. `products.count` is deliberately absent: rule 5 says products have no
 * count variant (the products table contradicts it; the emulator serves it from `sandboxOnlyEndpoints` below). `customerReturns.count` is
 * present because rule 5 promises it even though the returns table leaves it out.
 */
export const endpoints = {
  'products.list': list('products.list', '/v1/products.json', q.productListQuery, 'products', r.product),

  'customerShipments.list': list('customerShipments.list', `${CS}.json`, q.customerShipmentListQuery, 'data', r.customerShipment),
  'customerShipments.count': count('customerShipments.count', `${CS}/count.json`, q.customerShipmentListQuery),
  'customerShipments.acknowledge': write('customerShipments.acknowledge', 'PUT', `${CS}/acknowledge.json`, 'per-item', rq.acknowledgeItem, rs.acknowledgeResult),
  'customerShipments.changeStatus': write('customerShipments.changeStatus', 'PATCH', `${CS}/change-status.json`, 'per-item', rq.changeStatusItem, rs.changeStatusResult, true),
  'customerShipments.ship': write('customerShipments.ship', 'PUT', `${CS}/ship.json`, 'fail-fast', rq.shipRequestItem, rs.shipResult),
  'customerShipments.failed': write('customerShipments.failed', 'PATCH', `${CS}/failed.json`, 'per-item', rq.failedItem, rs.failedResult, true),
  'customerShipments.sscc': { id: 'customerShipments.sscc', method: 'GET', path: `${CS}/{shipment_id}/sscc.json`, style: 'single', response: rs.ssccResponse },

  'outboundTransfers.list': list('outboundTransfers.list', `${OT}.json`, q.outboundTransferListQuery, 'data', r.outboundTransfer),
  'outboundTransfers.count': count('outboundTransfers.count', `${OT}/count.json`, q.outboundTransferListQuery),
  'outboundTransfers.acknowledge': write('outboundTransfers.acknowledge', 'PUT', `${OT}/acknowledge.json`, 'fail-fast', rq.acknowledgeItem, rs.failFastAcknowledgeResult),
  'outboundTransfers.ship': write('outboundTransfers.ship', 'PUT', `${OT}/ship.json`, 'fail-fast', rq.outboundTransferShipItem, rs.shipResult),

  'inboundTransfers.list': { ...list('inboundTransfers.list', `${IT}.json`, q.inboundTransferListQuery, 'data', r.inboundTransfer), queryRequired: true },
  'inboundTransfers.count': count('inboundTransfers.count', `${IT}/count.json`, q.inboundTransferListQuery),
  'inboundTransfers.acknowledge': write('inboundTransfers.acknowledge', 'PUT', `${IT}/acknowledge.json`, 'fail-fast', rq.acknowledgeItem, rs.failFastAcknowledgeResult),
  'inboundTransfers.receive': write('inboundTransfers.receive', 'PUT', `${IT}/receive.json`, 'fail-fast', rq.inboundTransferReceiveItem, rs.inboundReceiveResult),

  'supplierShipments.list': list('supplierShipments.list', `${SS}.json`, q.supplierShipmentListQuery, 'data', r.supplierShipment),
  'supplierShipments.count': count('supplierShipments.count', `${SS}/count.json`, q.supplierShipmentListQuery),
  'supplierShipments.acknowledge': write('supplierShipments.acknowledge', 'PUT', `${SS}/acknowledge.json`, 'per-item', rq.acknowledgeItem, rs.acknowledgeResult),
  'supplierShipments.receive': write('supplierShipments.receive', 'PUT', `${SS}/receive.json`, 'per-item', rq.supplierReceiveItem, rs.receiveResult),
  'supplierShipments.failed': write('supplierShipments.failed', 'PATCH', `${SS}/failed.json`, 'per-item', rq.failedItem, rs.failedResult, true),

  'customerReturns.list': list('customerReturns.list', `${CR}.json`, q.customerReturnListQuery, 'data', r.customerReturn),
  'customerReturns.count': count('customerReturns.count', `${CR}/count.json`, q.customerReturnListQuery),
  'customerReturns.acknowledge': write('customerReturns.acknowledge', 'PUT', `${CR}/acknowledge.json`, 'per-item', rq.acknowledgeItem, rs.acknowledgeResult),
  'customerReturns.receive': write('customerReturns.receive', 'PUT', `${CR}/receive.json`, 'per-item', rq.returnReceiveItem, rs.receiveResult),

  'inventory.adjustments': {
    id: 'inventory.adjustments', method: 'POST', path: '/v1/inventory/adjustments.json', style: 'per-item',
    bodyKey: 'adjustments', body: rq.adjustmentsRequest, item: rq.adjustmentItem,
    response: rs.adjustmentsResponse, responseItem: rs.adjustmentResult,
  },
  'inventory.counts': {
    id: 'inventory.counts', method: 'POST', path: '/v1/inventory/counts.json', style: 'single',
    body: rq.cycleCountRequest, item: rq.cycleCountRequest, response: rs.cycleCountResponse,
  },
} as const satisfies Record<string, EndpointDef>;

export type EndpointId = keyof typeof endpoints;
export type Endpoint<K extends EndpointId = EndpointId> = (typeof endpoints)[K];
export const endpointList: readonly EndpointDef[] = Object.values(endpoints);

type Def<K extends EndpointId> = (typeof endpoints)[K];
/** Endpoint ids by style, derived from the table above. */
export type ListEndpointId = { [K in EndpointId]: Def<K>['style'] extends 'list' ? K : never }[EndpointId];
export type CountEndpointId = { [K in EndpointId]: Def<K>['style'] extends 'count' ? K : never }[EndpointId];
/** Writes of many items in one request (`{shipments: [...]}` / `{adjustments: [...]}`). */
export type BatchEndpointId = { [K in EndpointId]: Def<K>['style'] extends 'per-item' | 'fail-fast' ? K : never }[EndpointId];
export type FailFastEndpointId = { [K in EndpointId]: Def<K>['style'] extends 'fail-fast' ? K : never }[EndpointId];
/** Every write: the batch endpoints and the cycle count (one object). What an inbound mapping can feed. */
export type WriteEndpointId = BatchEndpointId | 'inventory.counts';
/**
 * Endpoints only the emulator serves. The interface's products table lists `GET /v1/products/count.json` while its
 * rule 5 says products have no count variant: the sandbox answers it (`{count}` of the listed goods, same filters as
 * the list), so a client written against the table works there, but it is not in `endpoints`, so the bridge's client
 * never depends on it (docs/contract.md).
 */
export const sandboxOnlyEndpoints = {
  'products.count': count('products.count', '/v1/products/count.json', q.productListQuery),
} as const satisfies Record<string, EndpointDef>;
