import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WisbridgeError } from '../errors.js';
import type { EndpointGuard } from './endpoint-auth.js';
import type { ServiceMetrics } from './metrics.js';

export interface HealthReport {
  healthy: boolean;
  body: Record<string, unknown>;
}

export interface HealthServer {
  /** http://HOST:PORT */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `/metrics` (Prometheus text) and `/healthz` (200 with JSON while healthy, 503 otherwise); `extra` (the console)
 * may take any other request first, returning true when it did; `guard` (metrics.auth) may refuse the two.
 */
export async function startHealthServer(
  host: string, port: number, metrics: ServiceMetrics, health: () => HealthReport,
  extra?: (req: IncomingMessage, res: ServerResponse) => boolean,
  guard?: EndpointGuard,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/healthz' && extra?.(req, res)) return;
    if ((path === '/metrics' || path === '/healthz') && guard?.(req, res, path)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      metrics.text().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(error as Error).message}\n`),
      );
      return;
    }
    if (path === '/healthz') {
      let report: HealthReport;
      try {
        report = health();
      } catch (error) {
        report = { healthy: false, body: { status: 'error', error: (error as Error).message } };
      }
      res.writeHead(report.healthy ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(report.body) + '\n');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics or /healthz\n');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new WisbridgeError('CONFIG_INVALID', `metrics: cannot listen on ${host}:${port} (${error.code ?? error.message})`)));
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
