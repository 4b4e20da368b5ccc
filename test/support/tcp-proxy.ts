import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy (to PostgreSQL in the tests) that can be cut (every connection dropped, new ones refused) and restored on the same port. */
export async function tcpProxy(targetPort: number): Promise<{ port: number; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  const cut = () => {
    server.close();
    for (const s of sockets) s.destroy();
  };
  return {
    port,
    cut,
    restore: () => void listen(),
    close: async () => {
      cut();
      await new Promise((done) => setTimeout(done, 10));
    },
  };
}
