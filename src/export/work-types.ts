import type { ExportJob, WorkType } from '../config/schema.js';
import type { BatchEndpointId, ListEndpointId } from '../client/index.js';
import { DATE_PLACEHOLDER, formatDateStamp } from '../util/date-stamp.js';

/** Work types whose pending records are handed over once and acknowledged (everything but products). */
export type WorkListType = Exclude<WorkType, 'products'>;

export interface WorkTypeSpec {
  list: ListEndpointId;
  /** Filters of the pending list (inbound transfers need an explicit status: their default is `all`). */
  pending: Record<string, unknown>;
  acknowledge: BatchEndpointId;
  /** The service can cancel these after they were handed over (listed `canceled`). */
  cancellable: boolean;
  /** The listing accepts `updated_at_min` (used to narrow the cancellation listing). */
  updatedFilter: boolean;
}

export const WORK_TYPE_SPECS: Record<WorkListType, WorkTypeSpec> = {
  customerShipments: {
    list: 'customerShipments.list', pending: { status: 'pending' }, acknowledge: 'customerShipments.acknowledge', cancellable: true, updatedFilter: true,
  },
  outboundTransfers: {
    list: 'outboundTransfers.list', pending: { status: 'pending' }, acknowledge: 'outboundTransfers.acknowledge', cancellable: false, updatedFilter: true,
  },
  inboundTransfers: {
    list: 'inboundTransfers.list', pending: { status: 'pending' }, acknowledge: 'inboundTransfers.acknowledge', cancellable: false, updatedFilter: false,
  },
  supplierShipments: {
    list: 'supplierShipments.list', pending: { status: 'pending' }, acknowledge: 'supplierShipments.acknowledge', cancellable: false, updatedFilter: true,
  },
  customerReturns: {
    list: 'customerReturns.list', pending: { status: 'pending' }, acknowledge: 'customerReturns.acknowledge', cancellable: true, updatedFilter: true,
  },
};

const WORK_TYPES = [...Object.keys(WORK_TYPE_SPECS), 'products'] as WorkType[];

/** The work types as the command line writes them: `customer-shipments`, …, `products`. */
export const WORK_TYPE_ARGUMENTS: readonly string[] = WORK_TYPES.map((t) => t.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

/** Accepts `customerShipments` and `customer-shipments` (CLI). */
export function parseWorkType(text: string): WorkType | undefined {
  const camel = text.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return WORK_TYPES.find((t) => t === camel);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** UTC yyyyMMddHHmmss. */
export function fileTimestamp(at: Date): string {
  return `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}`;
}

/** Fills the placeholders {job} {work_type} {timestamp} {date:PATTERN[@ZONE]} {seq} of a configured file name. */
export function formatFileName(pattern: string, job: Pick<ExportJob, 'name' | 'work_type'>, at: Date, seq: number): string {
  return pattern
    .replaceAll('{job}', job.name)
    .replaceAll('{work_type}', job.work_type)
    .replaceAll('{timestamp}', fileTimestamp(at))
    .replace(DATE_PLACEHOLDER, (_, datePattern: string, zone?: string) => formatDateStamp(at, datePattern, zone))
    .replaceAll('{seq}', pad(seq, 6));
}
