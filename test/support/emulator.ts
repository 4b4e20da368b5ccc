import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type EmulatorOptions, type Faults, type RunningEmulator } from '../../src/emulator/index.js';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface EmulatorHandle {
  readonly url: string;
  /** A token for warehouse 1 (valid 1 h). */
  readonly token: string;
  readonly emulator: RunningEmulator;
  mintToken(warehouses: number[], expiresInSeconds?: number): string;
  /** One HTTP request to the emulator; the body is parsed JSON when the answer is JSON. */
  request<T = any>(method: string, path: string, body?: unknown, options?: { token?: string | null; headers?: Record<string, string>; raw?: string }): Promise<Reply<T>>;
  get<T = any>(path: string, token?: string | null): Promise<Reply<T>>;
}

/**
 * Starts one emulator for the test file (port 0, in-memory, seed 1, small) and closes it afterwards.
 * `resetEachTest` rebuilds the state (and clears faults) before every test.
 */
export function useEmulator(options: EmulatorOptions & { resetEachTest?: boolean } = {}): EmulatorHandle {
  let emulator: RunningEmulator | undefined;
  let token = '';
  const { resetEachTest, ...startOptions } = options;
  const handle: EmulatorHandle = {
    get url() { return need().url; },
    get token() { return token; },
    get emulator() { return need(); },
    mintToken: (w, e) => need().mintToken(w, e),
    async request(method, path, body, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const t = opts.token === undefined ? token : opts.token;
      if (t !== null) headers.authorization = `Bearer ${t}`;
      let payload: string | undefined = opts.raw;
      if (payload === undefined && body !== undefined) payload = JSON.stringify(body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${need().url}${path}`, { method, headers, body: payload });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
      return { status: res.status, body: parsed as any, headers: res.headers };
    },
    get: (path, t) => handle.request('GET', path, undefined, { token: t }),
  };
  function need(): RunningEmulator {
    if (!emulator) throw new Error('useEmulator: the emulator is not started yet (use it inside tests or hooks)');
    return emulator;
  }
  beforeAll(async () => {
    emulator = await startEmulator({ today: '2026-11-22', ...startOptions });
    token = emulator.mintToken([1], 3600);
  });
  afterAll(async () => {
    await emulator?.close();
  });
  if (resetEachTest) {
    beforeEach(async () => {
      await resetEmulator(handle, { seed: startOptions.seed ?? 1, scale: startOptions.scale ?? 'small' });
      await setFaults(handle, {});
    });
  }
  return handle;
}

async function admin(emu: { url: string }, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${emu.url}/_admin/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** GET /_admin/state (optionally only some sections, e.g. ['customer_shipments', 'inventory']). */
export function adminState(emu: { url: string }, only?: string[]): Promise<any> {
  return admin(emu, 'GET', `state${only ? `?only=${only.join(',')}` : ''}`);
}

/** How many adjustments the emulator applied per reference starting with `prefix` (a row applied twice counts 2). */
export async function appliedReferences(emu: { url: string }, prefix: string): Promise<Map<string, number>> {
  const state = await adminState(emu, ['adjustments']);
  const counts = new Map<string, number>();
  for (const a of state.adjustments as Array<{ reference: string | null }>) {
    if (a.reference?.startsWith(prefix)) counts.set(a.reference, (counts.get(a.reference) ?? 0) + 1);
  }
  return counts;
}

/**
 * One adjustment (SKU-00001, reference `reference`) written through the emulator and answered: it waits out the same
 * injected latency as every write before it, so once it is answered each write that reached the emulator earlier was
 * applied or dropped. What a test waits for to show nothing more is applied after some point, instead of a pause.
 */
export async function probeWrite(emu: EmulatorHandle, reference: string): Promise<void> {
  const probe = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00001', quantity: 1, company_code: 'ACME', reference }] });
  if (probe.status !== 200) throw new Error(`the probe write ${reference} answered ${probe.status}: ${JSON.stringify(probe.body)}`);
}

/** PUT /_admin/faults: the given faults replace the current ones (missing fields are off). */
export function setFaults(emu: { url: string }, faults: Partial<Faults>): Promise<Faults> {
  return admin(emu, 'PUT', 'faults', faults);
}

export function resetEmulator(emu: { url: string }, body: { seed?: number; scale?: 'small' | 'medium' | 'large'; today?: string } = {}): Promise<any> {
  return admin(emu, 'POST', 'reset', body);
}

export function adminToken(emu: { url: string }, warehouses: number[], expiresIn = 3600): Promise<string> {
  return admin(emu, 'POST', 'tokens', { warehouses, expires_in: expiresIn }).then((r: { token: string }) => r.token);
}

/** Records of one family from the admin state, filtered. */
export async function records(emu: { url: string }, family: string, filter: (r: any) => boolean = () => true): Promise<any[]> {
  const state = await adminState(emu, [family]);
  return (state[family] as any[]).filter(filter);
}

/** A pending warehouse-1 record of a family with 2+ lines of 2+ units, none of them lot-tracked. */
export async function multiLineRecord(emu: { url: string }, family: string): Promise<any> {
  const flags = new Map((await adminState(emu, ['products'])).products.map((p: any) => [p.code, p]));
  const all = await records(emu, family, (r) => r.warehouse_id === 1 && r.list_status === 'pending');
  return all.find((r) => r.lines.length >= 2 && r.lines.every((l: any) => l.quantity >= 2 && !(flags.get(l.product_code) as any).lot_tracked));
}

/** One record of a family by id, from the admin state. */
export async function recordById(emu: { url: string }, family: string, id: number): Promise<any> {
  return (await records(emu, family, (r) => r.id === id))[0];
}
