/**
 * A distant link for a server on this machine (bench/files.ts, the SFTP drop's tests): a TCP proxy on loopback that
 * holds every chunk `oneWayMs` before it passes it on, in each direction (a round trip then takes 2 × oneWayMs more).
 * Chunks leave in the order they came (timers of one duration fire in the order they were set); bandwidth is not
 * limited. `traffic` lists the chunks as they arrived: 'up' from the client, 'down' from the server.
 */
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';

export interface DelayProxy {
  port: number;
  traffic: Array<{ direction: 'up' | 'down'; bytes: number }>;
  close(): Promise<void>;
}

/** A server's URL (`…:port/…`) reached through the proxy instead. */
export function throughProxy(url: string, target: { port: number }, proxy: { port: number }): string {
  return url.replace(`:${target.port}/`, `:${proxy.port}/`);
}

export async function startDelayProxy(target: { host: string; port: number }, oneWayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const traffic: DelayProxy['traffic'] = [];
  const relay = (from: Socket, to: Socket, direction: 'up' | 'down') => {
    from.on('data', (chunk: Buffer) => {
      traffic.push({ direction, bytes: chunk.length });
      setTimeout(() => to.write(chunk), oneWayMs);
    });
    from.on('end', () => setTimeout(() => to.end(), oneWayMs));
    from.on('error', () => to.destroy());
  };
  // No Nagle on either side: a real hop passes each segment on as it comes, and both ends here (pg, ssh2, OpenSSH)
  // turn it off; a proxy that waited for the ACK of its last write held back a pipelined second write by ~40 ms.
  const server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ port: target.port, host: target.host, noDelay: true });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    relay(client, upstream, 'up');
    relay(upstream, client, 'down');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    traffic,
    async close() {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
