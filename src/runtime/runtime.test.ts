import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { checkConfigText } from '../config/check-text.js';
import { bindConfig } from '../config/load.js';
import { createRuntime } from './runtime.js';

const adjustments = `document: inventory.adjustments
files: "KORR_*.csv"
request:
  fields:
    product_code: SKU
`;

async function runtimeOver(files: Record<string, string>, logger?: Logger) {
  const dir = await mkdtemp(join(tmpdir(), 'wb-runtime-'));
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(dir, name), text)));
  const { config, problems } = checkConfigText(
    `mappings: ${dir}\nservices: { wis: { url: "http://127.0.0.1:1", token: { env: UNUSED } } }\ndrops: { local: { type: local, root: ${dir} } }\n`,
    'wisbridge.yaml',
  );
  expect(problems).toEqual([]);
  return createRuntime(bindConfig(config!, join(dir, 'wisbridge.yaml')), { logger });
}

describe('runtime mappings', () => {
  it('one mapping by name comes from its own file, without the folder\'s other problems', async () => {
    const runtime = await runtimeOver({ 'a.yaml': adjustments, 'broken.yaml': 'document: [\n' });
    expect((await runtime.mapping('a')).name).toBe('a');
    await expect(runtime.mappings()).rejects.toMatchObject({ code: 'MAPPING_INVALID' });
  });

  it('a mapping named inside another file, or any once the set is loaded, comes from the set', async () => {
    const runtime = await runtimeOver({ 'file.yaml': 'name: declared\n' + adjustments, 'b.yaml': adjustments });
    expect((await runtime.mapping('declared')).name).toBe('declared');
    const set = await runtime.mappings();
    expect(await runtime.mapping('b')).toBe(set.get('b'));
    await expect(runtime.mapping('nope')).rejects.toMatchObject({ code: 'MAPPING_NOT_FOUND' });
  });

  it('a mapping key under its old name works and is logged once as deprecated, naming the new key', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const ack = 'document: customerShipments.acknowledge\nfiles: "ACK_*.csv"\nrequest:\n  key: N\n  fields:\n    id: { column: N, resolve: customerShipment }\n';
    const runtime = await runtimeOver({ 'ack.yaml': ack }, logger);
    const mapping = await runtime.mapping('ack');
    expect(mapping.name).toBe('ack');
    await runtime.mapping('ack');
    await runtime.mappings();
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string; mapping: string });
    expect(warnings.map((w) => w.msg)).toEqual(['request.fields.id.resolve: deprecated spelling; write `id_of` (the old name still works for now)']);
    expect(warnings[0]!.mapping).toMatch(/ack\.yaml:6:22$/);
    // `run` and `batch` hand the runtime the mappings their configuration check read: those warn too.
    const given: string[] = [];
    createRuntime(runtime.loaded, { logger: pino({ level: 'warn' }, { write: (line: string) => given.push(line) }), mappings: await runtime.mappings() });
    expect(given.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([warnings[0]!.msg]);
  });
});
