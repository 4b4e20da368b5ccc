import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMappings, loadMappings, loadNamedMapping, mappingSet } from '../../src/mapping/index.js';
import { mappingOf, problemsOf, rejection } from './helpers.js';

const base = `document: inventory.adjustments
files: "KORR_*.csv"
request:
  fields:
    product_code: SKU
`;

describe('ordered: the files of a mapping in name order', () => {
  it('an inbound mapping takes it (default false) and its files are bound to one lane; an export refuses it; a non-boolean is refused', async () => {
    const { filePlace } = await import('../../src/pipeline/file-order.js');
    expect(mappingOf(base).definition.ordered).toBe(false);
    const ordered = mappingOf(`ordered: true\n${base}`, 'korr-ordered.yaml');
    expect(ordered.definition.ordered).toBe(true);
    expect(filePlace(ordered)).toEqual({ lane: 'korr-ordered', family: 'inventory', stage: 2 });
    expect(filePlace(mappingOf(base))).toEqual({ family: 'inventory', stage: 2 });
    expect(filePlace(mappingOf('document: customerShipments.acknowledge\nfiles: "ACK_*.csv"\nrequest:\n  fields:\n    id: { column: N, type: number }\n'))).toEqual({ family: 'customerShipments', stage: 0 });
    expect(problemsOf(`ordered: yes\n${base}`)[0]).toMatch(/^test\.yaml:1:\d+: ordered: /);
    const exportMapping = 'ordered: true\ndocument: products.list\nfiles: "P_*.csv"\nexport:\n  columns:\n    - { name: code, path: code }\n';
    expect(problemsOf(exportMapping).join('\n')).toMatch(/ordered is for inbound files/);
  });
});

describe('definition problems name the file and the YAML position', () => {
  it('YAML syntax errors', () => {
    expect(problemsOf('document: [\n', 'm.yaml')[0]).toMatch(/^m\.yaml:\d+:\d+: YAML: /);
  });
  it('duplicate keys', () => {
    expect(problemsOf(base + 'files: x\n', 'm.yaml')[0]).toMatch(/^m\.yaml:6:1: YAML: Map keys must be unique/);
  });
  it('an unknown document points at its value', () => {
    expect(problemsOf(base.replace('inventory.adjustments', 'inventory.nope'))[0]).toMatch(/^test\.yaml:1:11: document: Invalid option/);
  });
  it('an unknown key (typo) points at the key and names the closest known one', () => {
    expect(problemsOf(base + '    quantity: { colum: QTY }\n')).toEqual(['test.yaml:6:17: request.fields.quantity.colum: unknown option; did you mean `column`?']);
  });
  it('every problem of a field written as an object at once: a misspelt key beside a bad type', () => {
    expect(problemsOf(base + '    quantity: { colum: QTY, type: numbr }\n')).toEqual([
      'test.yaml:6:35: request.fields.quantity.type: Invalid option: expected one of "string"|"integer"|"number"|"boolean"|"date"|"datetime"; did you mean "number"?',
      'test.yaml:6:17: request.fields.quantity.colum: unknown option; did you mean `column`?',
    ]);
  });
  it('a bad value deep in a transform', () => {
    const p = problemsOf(base + '    reason: { column: R, transforms: [{ pad: { length: 0 } }] }\n');
    expect(p[0]).toMatch(/^test\.yaml:6:\d+: request\.fields\.reason\.transforms\.0/);
  });
  it('a bad regular expression, an unknown table, a bad date pattern, an unknown time zone', () => {
    expect(problemsOf(base + '    reason: { column: R, transforms: [{ regex: { pattern: "(" } }] }\n')[0])
      .toMatch(/^test\.yaml:6:\d+: request\.fields\.reason\.transforms\.0\.regex\.pattern: invalid regular expression \/\(\//);
    expect(problemsOf(base + '    reason: { column: R, transforms: [{ lookup: { table: t } }] }\n')[0])
      .toBe('test.yaml:6:58: request.fields.reason.transforms.0.lookup.table: lookup table "t" is not defined under tables');
    expect(problemsOf(base + '    date: { column: D, type: date, format: dd.QQ.yyyy }\n')[0]).toMatch(/^test\.yaml:6:\d+: request\.fields\.date\.format: date pattern "dd\.QQ\.yyyy": unknown letter "Q"/);
    expect(problemsOf(base + '    date: { column: D, type: datetime, time_zone: Nowhere/City }\n')[0]).toMatch(/time_zone: unknown time zone "Nowhere\/City"/);
  });
  it('a constant or default that does not fit its type', () => {
    expect(problemsOf(base + '    quantity: { column: Q, type: number, default: "x" }\n')[0]).toMatch(/field "quantity": default "x" is not a number/);
  });
  it('a field without a source, or with two', () => {
    expect(problemsOf(base + '    quantity: { type: number }\n')[0]).toMatch(/field "quantity" needs a column, a value, a concat or a default/);
    expect(problemsOf(base + '    quantity: { column: Q, value: 1 }\n')[0]).toMatch(/give only one of column, value, concat/);
  });
  it('positional columns are checked at load time', () => {
    const p = problemsOf(`document: inventory.adjustments\nfiles: x\ndialect: { header: false }\ncolumns: [SKU]\nrequest:\n  fields:\n    product_code: SKUU\n`);
    expect(p[0]).toMatch(/^test\.yaml:7:19: request\.fields\.product_code\.column: column "SKUU" is not among the positional columns \(SKU\)/);
  });
  it('record types: duplicate column names and unknown columns', () => {
    const rt = (d: string, col = 'A') => `document: inventory.adjustments\nfiles: x\ndialect: { header: false }\nrecord_types:\n  types:\n    H: { columns: [T, A] }\n    D: { columns: [${d}] }\nrequest:\n  fields:\n    product_code: ${col}\n`;
    expect(problemsOf(rt('T2, A'))[0]).toMatch(/^test\.yaml:7:\d+: record_types\.types\.D\.columns: column "A" appears in record types H and D/);
    expect(problemsOf(rt('T2, B', 'C'))[0]).toMatch(/column "C" is not defined by any record type \(T, A, T2, B\)/);
  });
  it('direction checks: a write needs request, an export needs export', () => {
    expect(problemsOf('document: products.list\nfiles: x\nrequest: { fields: {} }\n')[0]).toMatch(/products\.list is an export: use export, not request/);
    expect(problemsOf('document: inventory.adjustments\nfiles: x\n')[0]).toMatch(/needs a request section/);
    expect(problemsOf('document: inventory.counts\nfiles: x\nrequest: { key: A, fields: {} }\n')[0]).toMatch(/^test\.yaml:3:\d+: request\.key: a whole-file request/);
  });
  it('export checks: bad paths, BOM with a single-byte encoding', () => {
    expect(problemsOf('document: products.list\nfiles: x\nexport:\n  columns: [{ name: A, path: "a..[" }]\n')[0]).toMatch(/cannot read path "a\.\.\["/);
    expect(problemsOf('document: products.list\nfiles: x\ndialect: { bom: true, encoding: windows-1252 }\nexport:\n  columns: [{ name: A, path: a }]\n')[0]).toMatch(/^test\.yaml:3:\d+: dialect\.bom: a byte order mark is only written with encoding utf-8/);
  });
  it('optional_level needs a key and one nested list', () => {
    expect(problemsOf(base + '  lists:\n    x:\n      optional_level: true\n      fields: {}\n')[0]).toMatch(/optional_level needs a key/);
  });
});

describe('one mapping by name, from its own file', () => {
  it('reads only <name>.yaml: another file\'s problem does not stop it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-map-'));
    await writeFile(join(dir, 'a.yaml'), base);
    await writeFile(join(dir, 'broken.yaml'), 'document: [\n');
    expect((await loadNamedMapping(dir, 'a'))?.document).toBe('inventory.adjustments');
    await expect(loadMappings(dir)).rejects.toMatchObject({ code: 'MAPPING_INVALID' });
  });
  it('undefined when there is no such file or it names another mapping; its own problem is MAPPING_INVALID with position', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-map-'));
    await writeFile(join(dir, 'a.yml'), 'name: other\n' + base);
    await writeFile(join(dir, 'b.yaml'), base.replace('SKU', '{ colum: SKU }'));
    expect(await loadNamedMapping(dir, 'a')).toBeUndefined();
    expect(await loadNamedMapping(dir, 'missing')).toBeUndefined();
    const e = await rejection(loadNamedMapping(dir, 'b'));
    expect(e.code).toBe('MAPPING_INVALID');
    expect(e.message).toMatch(new RegExp(`^${join(dir, 'b.yaml').replace(/[.\\/]/g, '\\$&')}:5:21: `));
    expect(e.message).toContain('request.fields.product_code.colum: unknown option; did you mean `column`?');
  });
});

describe('mapping sets', () => {
  it('loadMappings reports every problem of a folder as MAPPING_INVALID with positions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-map-'));
    await writeFile(join(dir, 'a.yaml'), base);
    await writeFile(join(dir, 'b.yaml'), base.replace('SKU', '{ colum: SKU }'));
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const checked = await checkMappings(dir);
    expect(checked.mappings.map((m) => m.name)).toEqual(['a']);
    const e = await rejection(loadMappings(dir));
    expect(e.code).toBe('MAPPING_INVALID');
    expect(e.message).toMatch(new RegExp(`^${join(dir, 'b.yaml').replace(/[.\\/]/g, '\\$&')}:5:21: `));
  });
  it('duplicate names are refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-map-'));
    await writeFile(join(dir, 'a.yaml'), 'name: same\n' + base);
    await writeFile(join(dir, 'b.yaml'), 'name: same\n' + base);
    const { problems } = await checkMappings(dir);
    expect(problems.map((p) => p.message)).toEqual([`name "same" is already used by ${join(dir, 'a.yaml')}`]);
  });
  it('a missing folder is MAPPING_NOT_FOUND', async () => {
    expect((await rejection(loadMappings('/nonexistent/wisbridge'))).code).toBe('MAPPING_NOT_FOUND');
  });
  it('find by file-name pattern (case-insensitive), get by name, ambiguity is an error', () => {
    const a = mappingOf(base, 'a.yaml');
    const b = mappingOf(base.replace('KORR_*.csv', '*_2026.csv'), 'b.yaml');
    const set = mappingSet([a, b]);
    expect(set.find('korr_1.CSV')?.name).toBe('a');
    expect(set.find('other.csv')).toBeUndefined();
    expect(() => set.find('KORR_2026.csv')).toThrow('matches several mappings: a, b');
    expect(set.get('b')).toBe(b);
    expect(() => set.get('stock-levels')).toThrow('no mapping named "stock-levels" (known: a, b)');
    const near = mappingSet([mappingOf(base, 'inventory-adjustments.yaml')]);
    expect(() => near.get('inventory-adjustmens')).toThrow('no mapping named "inventory-adjustmens"; did you mean "inventory-adjustments"? (known: inventory-adjustments)');
  });
});
