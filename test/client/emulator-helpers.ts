import { afterAll, beforeAll, beforeEach } from 'vitest';
import { WisClient, type ClientEvent, type ClientOptions } from '../../src/client/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { adminState, resetEmulator, setFaults } from '../support/emulator.js';

/** The real emulator over HTTP on loopback, with its admin API, for the client's tests. */
export interface TestService {
  emulator: RunningEmulator;
  url: string;
  token: string;
  state(only?: string): Promise<AdminState>;
  faults(faults: Record<string, unknown>): Promise<void>;
  reset(): Promise<void>;
  client(options?: Partial<ClientOptions>): WisClient & { events: ClientEvent[] };
  close(): Promise<void>;
}

export interface AdminRecord {
  id: number;
  number: string;
  warehouse_id: number;
  state: string;
  list_status: string;
  acknowledged_at: string | null;
  shipped_at: string | null;
  picking_status: string | null;
  tpl_status: string | null;
  lines: { id: number; product_code: string; quantity: number; lot_number: string | null }[];
}

export interface AdminState {
  today: string;
  products: { id: number; code: string; type: string; lot_tracked: boolean; serial_tracked: boolean }[];
  customer_shipments: AdminRecord[];
  outbound_transfers: AdminRecord[];
  inbound_transfers: AdminRecord[];
  supplier_shipments: AdminRecord[];
  customer_return_shipments: AdminRecord[];
  adjustments: { id: number; product_code: string; quantity: number; reference: string | null; warehouse_id: number }[];
  counts: { id: number; reference: string | null }[];
}

export async function startTestService(options: { scale?: 'small' | 'medium' | 'large'; seed?: number } = {}): Promise<TestService> {
  const emulator = await startEmulator({ port: 0, seed: options.seed ?? 1, scale: options.scale ?? 'small', today: '2026-11-22' });
  const token = emulator.mintToken([1]);
  const clients: WisClient[] = [];
  return {
    emulator,
    url: emulator.url,
    token,
    state: async (only) => (await adminState(emulator, only ? [only] : undefined)) as AdminState,
    faults: async (faults) => {
      await setFaults(emulator, faults);
    },
    reset: async () => {
      await setFaults(emulator, {});
      await resetEmulator(emulator, { seed: options.seed ?? 1, scale: options.scale ?? 'small' });
    },
    client(extra = {}) {
      const events: ClientEvent[] = [];
      const client = new WisClient({
        baseUrl: emulator.url, token, baseDelayMs: 5, maxDelayMs: 50,
        ...extra,
        onEvent: (e) => {
          events.push(e);
          extra.onEvent?.(e);
        },
      });
      clients.push(client);
      return Object.assign(client, { events });
    },
    async close() {
      await Promise.all(clients.map((c) => c.close(true)));
      await emulator.close();
    },
  };
}

/** One emulator per test file, reset (state and faults) before every test, handed to `use` once started. */
export function useTestService(use: (svc: TestService) => void): void {
  let svc: TestService | undefined;
  beforeAll(async () => {
    svc = await startTestService();
    use(svc);
  });
  beforeEach(async () => {
    await svc!.reset();
  });
  afterAll(async () => {
    await svc?.close();
  });
}

/** Number of HTTP requests that reached the wire for an endpoint (one per attempt). */
export function requestsTo(events: ClientEvent[], endpoint: string): number {
  return events.filter((e) => e.type === 'request-start' && e.endpoint === endpoint).length;
}

/** Goods products that need neither a lot nor serial numbers. */
export function plainProducts(state: AdminState): string[] {
  return state.products.filter((p) => p.type === 'goods' && !p.lot_tracked && !p.serial_tracked).map((p) => p.code);
}
