import { spawn, spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { checkMappings, INBOUND_DOCUMENTS, EXPORT_DOCUMENTS, mapInbound, type Mapping } from '../../src/mapping/index.js';
import { referenceTables } from '../../src/mapping/reference-doc.js';
import { expectedFileOf, summarizeInbound, testSamples } from '../../src/mapping/sample-test.js';
import { HttpReferenceIds } from './support/http-reference-ids.js';

const root = resolve(import.meta.dirname, '../..');
let mappings: Mapping[];

beforeAll(async () => {
  const checked = await checkMappings(resolve(root, 'mappings'));
  expect(checked.problems).toEqual([]);
  mappings = checked.mappings;
});

describe('default mappings', () => {
  it('docs/mapping.md carries the generated reference (regenerate: wisbridge mappings docs)', async () => {
    const doc = await readFile(resolve(root, 'docs/mapping.md'), 'utf8');
    const start = doc.indexOf('-->\n\n', doc.indexOf('<!-- GENERATED')) + 5;
    expect(doc.slice(start, doc.indexOf('<!-- END GENERATED -->'))).toBe(referenceTables());
  });
  it('cover every write, every acknowledgement and every work-list export, with samples', () => {
    const documents = new Set(mappings.map((m) => m.document));
    for (const d of [...INBOUND_DOCUMENTS, ...EXPORT_DOCUMENTS]) expect(documents, d).toContain(d);
    expect(mappings.filter((m) => m.document === 'customerShipments.ship')).toHaveLength(4);
    for (const m of mappings) expect(m.definition.samples?.length, m.name).toBeGreaterThan(0);
  });
  it('samples use at least two dialects, including semicolon/windows-1252/decimal comma/dd.MM.yyyy and a BOM', async () => {
    const delimiters = new Set(mappings.map((m) => m.dialect.delimiter));
    const encodings = new Set(mappings.map((m) => m.dialect.encoding));
    expect([...delimiters].sort()).toEqual([',', ';']);
    expect([...encodings].sort()).toEqual(['utf-8', 'windows-1252']);
    const boms = [];
    for (const m of mappings.filter((x) => x.direction === 'inbound')) {
      for (const s of m.definition.samples ?? []) {
        const bytes = await readFile(resolve(dirname(m.file), s));
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) boms.push(basename(s));
      }
    }
    expect(boms.length).toBeGreaterThan(0);
  });
  it('every mapping gives the expected output on its samples (what `wisbridge mappings test` runs)', async () => {
    const results = await testSamples(mappings);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results).toHaveLength(mappings.length);
  });
});

describe('samples against the emulator (small seed)', () => {
  let emu: RunningEmulator;
  let referenceIds: HttpReferenceIds;
  beforeAll(async () => {
    emu = await startEmulator({ scale: 'small', today: '2026-11-22' });
    referenceIds = new HttpReferenceIds(emu.url, emu.mintToken([1]));
  });
  afterAll(async () => emu?.close());

  it('references.json agrees with the seed: finding the ids through the API gives the same requests', async () => {
    for (const m of mappings.filter((x) => x.direction === 'inbound')) {
      for (const s of m.definition.samples ?? []) {
        const sample = resolve(dirname(m.file), s);
        const actual = await summarizeInbound(mapInbound(createReadStream(sample), m, { fileName: basename(sample), referenceIds }));
        const expected = JSON.parse(await readFile(expectedFileOf(m, sample), 'utf8'));
        expect(actual, `${m.name} on ${s}`).toEqual(expected);
      }
    }
  });

  it('wisbridge map finds the ids of references through the service with --url and a token from the environment', async () => {
    // Asynchronous child: the emulator answers from this very process.
    const child = spawn(process.execPath, [resolve(root, 'bin/wisbridge.js'), 'map', 'samples/GR_20261120.csv', '--url', emu.url, '--token-env', 'WB_TEST_TOKEN'], {
      cwd: root, env: { ...process.env, WB_TEST_TOKEN: emu.mintToken([1]) },
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const status = await new Promise<number | null>((ok) => child.on('close', ok));
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.find((l) => l.kind === 'request').body.shipments[0].id).toBe(1180);
    expect(lines.find((l) => l.kind === 'rejected').errors[0].message).toBe('GR_20261120.csv, line 7, column SKU: "SKU-99999" is not a known product');
    expect(status).toBe(1);
  });

  it('the emulator accepts the mapped requests', async () => {
    const token = emu.mintToken([1]);
    const send = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${emu.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    const cases: [string, string, string][] = [
      ['customer-shipment-acknowledge', 'PUT', '/v1/customer-shipments/acknowledge.json'],
      ['customer-shipment-ship', 'PUT', '/v1/customer-shipments/ship.json'],
      ['customer-shipment-picking-status', 'PATCH', '/v1/customer-shipments/change-status.json'],
      ['outbound-transfer-ship', 'PUT', '/v1/outbound-transfers/ship.json'],
      ['supplier-shipment-receive', 'PUT', '/v1/supplier-shipments/receive.json'],
      ['customer-return-receive', 'PUT', '/v1/customer-return-shipments/receive.json'],
      ['inventory-cycle-count', 'POST', '/v1/inventory/counts.json'],
      ['customer-shipment-ship-packages', 'PUT', '/v1/customer-shipments/ship.json'],
      ['customer-shipment-failed', 'PATCH', '/v1/customer-shipments/failed.json'],
      ['outbound-transfer-acknowledge', 'PUT', '/v1/outbound-transfers/acknowledge.json'],
      ['inbound-transfer-acknowledge', 'PUT', '/v1/inbound-transfers/acknowledge.json'],
      ['inbound-transfer-receive', 'PUT', '/v1/inbound-transfers/receive.json'],
      ['supplier-shipment-acknowledge', 'PUT', '/v1/supplier-shipments/acknowledge.json'],
      ['supplier-shipment-failed', 'PATCH', '/v1/supplier-shipments/failed.json'],
      ['customer-return-acknowledge', 'PUT', '/v1/customer-return-shipments/acknowledge.json'],
      ['inventory-adjustments', 'POST', '/v1/inventory/adjustments.json'],
      ['supplier-shipment-receive-fixed', 'PUT', '/v1/supplier-shipments/receive.json'],
      ['x12-945-customer-shipment-ship-packages', 'PUT', '/v1/customer-shipments/ship.json'],
      ['x12-945-outbound-transfer-ship', 'PUT', '/v1/outbound-transfers/ship.json'],
      ['x12-944-inbound-transfer-receive', 'PUT', '/v1/inbound-transfers/receive.json'],
    ];
    const statuses: string[] = [];
    for (const [name, method, path] of cases) {
      const m = mappings.find((x) => x.name === name)!;
      const sample = resolve(dirname(m.file), m.definition.samples![0]);
      const summary = await summarizeInbound(mapInbound(createReadStream(sample), m, { fileName: 'x', referenceIds }));
      for (const r of summary.requests) {
        const answer = await send(method, path, r.body);
        expect([200, 207], `${name}: ${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status);
        statuses.push(`${name} ${answer.status}`);
      }
    }
    expect(statuses).toHaveLength(cases.length);
  });
});

describe('commands', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [resolve(root, 'bin/wisbridge.js'), ...args], { cwd: root, encoding: 'utf8' });
  it('mappings check and test pass on the default mappings', () => {
    const check = cli('mappings', 'check');
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/^\d+ mapping\(s\) valid, 0 problem\(s\)/);
    const test = cli('mappings', 'test');
    expect(test.stdout).toMatch(/31 passed, 0 failed/);
    expect(test.status).toBe(0);
  });
  it('map prints the requests of a dry run and exits 1 when a document is rejected', () => {
    const r = cli('map', 'samples/SHIP_20261120_flat.csv', '--references', 'samples/references.json');
    expect(r.status).toBe(1);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.kind === 'request')[0].body.shipments.map((s: { id: number }) => s.id)).toEqual([1126, 1127]);
    expect(lines.filter((l) => l.kind === 'rejected').map((l) => l.errors[0].message)).toContain('SHIP_20261120_flat.csv, line 6, column QTY: "1,5x" is not a number');
  });
  it('mappings check reports file:line:col and exits 1; mappings test shows a readable diff and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-cli-'));
    await writeFile(join(dir, 'bad.yaml'), 'document: inventory.adjustments\nfiles: x\nrequest:\n  fields:\n    quantity: { column: Q, type: nmber }\n');
    const check = cli('mappings', 'check', '--dir', dir);
    expect(check.status).toBe(1);
    expect(check.stderr).toMatch(new RegExp(`bad\\.yaml:5:34: request\\.fields\\.quantity\\.type: Invalid option`));
    const ok = 'document: inventory.adjustments\nfiles: x\nsamples: [s.csv]\nrequest:\n  fields:\n    product_code: SKU\n    quantity: { column: Q, type: number }\n';
    await writeFile(join(dir, 'bad.yaml'), ok);
    await writeFile(join(dir, 's.csv'), 'SKU,Q\nA,1\nB,2\n');
    const update = cli('mappings', 'test', '--dir', dir, '--update');
    expect(update.status).toBe(0);
    expect(update.stdout).toMatch(/^wrote bad {2}\S*s\.csv$/m); // the expected file was written: not `ok`
    expect(update.stdout).toContain('1 written, 0 failed');
    await writeFile(join(dir, 's.csv'), 'SKU,Q\nA,1\nB,3\n');
    const test = cli('mappings', 'test', '--dir', dir);
    expect(test.status).toBe(1);
    expect(test.stdout).toContain('FAIL  bad');
    expect(test.stdout).toMatch(/^-\s+"quantity": 2$/m);
    expect(test.stdout).toMatch(/^\+\s+"quantity": 3$/m);
    expect(test.stdout).toContain('0 passed, 1 failed');
  });
  it('mappings check accepts id_of under its old name `resolve` and warns, naming id_of', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-cli-'));
    const old = 'document: customerShipments.acknowledge\nfiles: x\nrequest:\n  key: N\n  fields:\n    id: { column: N, resolve: customerShipment }\n';
    await writeFile(join(dir, 'old.yaml'), old);
    const check = cli('mappings', 'check', '--dir', dir);
    expect(check.status).toBe(0);
    expect(check.stderr).toBe(`${join(dir, 'old.yaml')}:6:22: request.fields.id.resolve: deprecated spelling; write \`id_of\` (the old name still works for now) (warning)\n`);
    expect(check.stdout).toContain('1 mapping(s) valid, 0 problem(s)');
    await writeFile(join(dir, 'old.yaml'), old.replace('resolve:', 'id_of:'));
    const renamed = cli('mappings', 'check', '--dir', dir);
    expect(renamed.status).toBe(0);
    expect(renamed.stderr).toBe('');
  });
  it('map without references for a mapping that needs them is a clear usage error', () => {
    const r = cli('map', 'samples/SHIP_20261120_flat.csv');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('wisbridge map: USAGE: mapping "customer-shipment-ship" needs the ids of references (shipment numbers, SKUs): give them with '
      + '--references FILE (a JSON table) or --url URL --token-env NAME (the service)\n');
  });
});
