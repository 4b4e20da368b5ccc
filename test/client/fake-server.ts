import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A tiny HTTP server for transport-level tests only (resets, 429, slow or garbage answers): each request is
 * answered by the next behaviour in the script (the last one repeats). Endpoint behaviour is tested against
 * the real emulator, never here.
 */
export type Behaviour =
  | { status: number; json?: unknown; raw?: string; headers?: Record<string, string> }
  | { reset: true }
  | { delayMs: number; status: number; json?: unknown };

export interface SeenRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
  socket: Socket;
}

export interface FakeServer {
  url: string;
  seen: SeenRequest[];
  sockets: Set<Socket>;
  script(behaviours: Behaviour[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(initial: Behaviour[] = [{ status: 200, json: {} }]): Promise<FakeServer> {
  let behaviours = initial;
  let served = 0;
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body, socket: req.socket });
    const b = behaviours[Math.min(served++, behaviours.length - 1)];
    if ('reset' in b) {
      req.socket.resetAndDestroy();
      return;
    }
    const answer = () => {
      if (res.destroyed) return;
      const raw = 'raw' in b && b.raw !== undefined ? b.raw : JSON.stringify(b.json ?? {});
      res.writeHead(b.status, { 'content-type': 'application/json', ...('headers' in b ? b.headers : {}) });
      res.end(raw);
    };
    if ('delayMs' in b) setTimeout(answer, b.delayMs);
    else answer();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (s) => {
    sockets.add(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    sockets,
    script(next) {
      behaviours = next;
      served = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
