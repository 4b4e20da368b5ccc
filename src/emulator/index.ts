import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { isoDate } from '../contract/index.js';
import { WisbridgeError } from '../errors.js';
import { silentLogger } from '../log.js';
import { getMeta, openDb } from './db.js';
import { FaultInjector } from './faults.js';
import { forgetWarehouses } from './lists.js';
import { DEFAULT_SECRET, signToken } from './jwt.js';
import { seedDb, type Scale } from './seed.js';
import { createHandler } from './server.js';
import { Store } from './store.js';

export { DEFAULT_SECRET, signToken, verifyToken } from './jwt.js';
export { faultsSchema, NO_FAULTS, type Faults } from './faults.js';
export { SCALES, productCode, seedLot, isLotProduct, isSerialProduct, type Scale } from './seed.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** SQLite file; `:memory:` (default) keeps state in memory. A file keeps state across restarts. */
  db?: string;
  seed?: number;
  scale?: Scale;
  secret?: string;
  /** YYYY-MM-DD; default: the clock's UTC date. */
  today?: string;
  logger?: Logger;
}

export interface RunningEmulator {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  close(): Promise<void>;
  mintToken(warehouses: number[], expiresInSeconds?: number): string;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const log = options.logger ?? silentLogger;
  const secret = options.secret ?? process.env.WISBRIDGE_EMULATOR_SECRET ?? DEFAULT_SECRET;
  if (secret.length < 8) throw new WisbridgeError('USAGE', 'the emulator secret must be at least 8 characters');
  let fixedToday = options.today;
  if (fixedToday !== undefined && !isoDate.safeParse(fixedToday).success) {
    throw new WisbridgeError('USAGE', `--today must be a date YYYY-MM-DD, got "${fixedToday}"`);
  }
  const today = () => fixedToday ?? new Date().toISOString().slice(0, 10);
  let db;
  try {
    db = openDb(options.db ?? ':memory:');
  } catch (error) {
    throw new WisbridgeError('USAGE', `cannot open the emulator database ${options.db}: ${(error as Error).message}`, { cause: error });
  }
  if (getMeta(db, 'seed') === undefined) {
    seedDb(db, options.seed ?? 1, options.scale ?? 'small', today());
  } else {
    log.info({ db: options.db }, 'emulator: keeping the state found in the database file');
  }
  const store = new Store(db);
  const faults = new FaultInjector();
  const deprecations: { field: string; message: string; at: string }[] = [];
  const mintToken = (warehouses: number[], expiresIn = 3600) => signToken(secret, warehouses, expiresIn);
  let url = '';
  const handler = createHandler({
    db, store, faults, secret, log, today, deprecations, mintToken,
    baseUrl: () => url,
    reset(seed, scale, newToday) {
      if (newToday !== undefined) fixedToday = newToday;
      seedDb(db, seed, scale, today());
      forgetWarehouses(db);
      store.forgetProducts();
      deprecations.length = 0;
    },
  });
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    void handler(req, res);
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"error":{"status":400,"code":"bad_request","message":"malformed HTTP request"}}');
    else socket.destroy();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      db.close();
      reject(new WisbridgeError('USAGE', `the emulator cannot listen on ${host}:${options.port ?? 0}: ${error.code ?? error.message}`, { cause: error }));
    });
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `http://${shownHost}:${port}`;
  log.info({ url }, 'emulator listening');
  let closed: Promise<void> | undefined;
  return {
    url,
    mintToken,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => {
          db.close();
          resolve();
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
