import { errorBody, type EndpointId, endpoints } from '../contract/index.js';
import { WisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RetryClass, Transport, TransportResponse } from './transport.js';
import type { CallOptions } from './types.js';

/** What the endpoint modules share: the transport and the client's defaults. */
export interface Core {
  transport: Transport;
  logger: Logger;
  batchSize: number;
  /** Default time limit of one operation (a listing, a whole write), ms. */
  operationTimeoutMs: number | undefined;
}

export function deadlineOf(core: Core, options: CallOptions | undefined): number | undefined {
  const given = options?.deadline instanceof Date ? options.deadline.getTime() : options?.deadline;
  const fromTimeout = core.operationTimeoutMs === undefined ? undefined : Date.now() + core.operationTimeoutMs;
  if (given === undefined) return fromTimeout;
  return fromTimeout === undefined ? given : Math.min(given, fromTimeout);
}

/** The service's message from a 4xx/5xx JSON body (`{error: {message}}`), or a fallback. */
export function serviceMessage(json: unknown, status: number): string {
  const parsed = errorBody.safeParse(json);
  return parsed.success ? parsed.data.error.message : `HTTP ${status}`;
}

/** Sends a GET and turns every answer but 2xx into a typed error (401 and retries are handled by the transport). */
export async function getJson(
  core: Core,
  endpoint: EndpointId,
  path: string,
  options: { signal?: AbortSignal; deadline?: number; retry?: RetryClass; raw?: boolean },
): Promise<TransportResponse> {
  const def = endpoints[endpoint];
  const res = await core.transport.send({
    endpoint, method: def.method, path, retry: options.retry ?? 'read', signal: options.signal, deadline: options.deadline, raw: options.raw,
  });
  if (res.status >= 200 && res.status < 300) return res;
  throw new WisbridgeError('BAD_REQUEST', `${endpoint}: the service answered ${res.status}: ${serviceMessage(res.json, res.status)}`, {
    details: { endpoint, status: res.status },
  });
}
