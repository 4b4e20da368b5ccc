import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { cli, finished, parseCsv, SAMPLES, workspace } from './helpers.js';
import { readFileSync } from 'node:fs';

const emu = useEmulator({ resetEachTest: true });

describe('wisbridge process', () => {
  it('--dry-run prints what would be sent, sends and claims nothing', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const local = join(ws.dir, 'local');
    mkdirSync(local);
    copyFileSync(join(SAMPLES, 'KORR_20261120.csv'), join(local, 'KORR_20261120.csv'));
    const r = await finished(cli(['process', join(local, 'KORR_20261120.csv'), '--config', ws.configFile, '--dry-run']));
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const request = lines.find((l) => l.kind === 'request');
    expect(request.endpoint).toBe('inventory.adjustments');
    expect(request.body.adjustments.map((a: any) => a.product_code)).toEqual(['SKU-00001', 'SKU-00002', 'SKU-00003']);
    // Named as the result file names them (the SKU), beside the mapping's key (none: one row each).
    expect(request.documents).toEqual([
      { key: '', document: 'SKU-00001', lines: [2] }, { key: '', document: 'SKU-00002', lines: [3] }, { key: '', document: 'SKU-00003', lines: [4] },
    ]);
    expect(lines.find((l) => l.kind === 'rejected')).toMatchObject({ key: '', document: 'SKU-00005', lines: [6] });
    expect(lines.find((l) => l.kind === 'rejected').errors).toEqual([
      { line: 6, column: 'Menge', raw: '3x', message: 'KORR_20261120.csv, line 6, column Menge: "3x" is not a number' },
    ]);
    expect(r.stderr).toMatch(/KORR_20261120\.csv\s+dry-run\s+3\s+1\s+1/);
    expect((await adminState(emu, ['adjustments'])).adjustments).toEqual([]);
    expect(readdirSync(local)).toEqual(['KORR_20261120.csv']);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    expect(await journal.listFiles({ limit: 10 })).toEqual([]);
    await journal.close();
  });

  it('processes a local file: the result goes to --out, the input stays; the same file again is a duplicate', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const local = join(ws.dir, 'local');
    const out = join(ws.dir, 'results');
    mkdirSync(local);
    copyFileSync(join(SAMPLES, 'ACK_SO_20261120.csv'), join(local, 'ACK_SO_20261120.csv'));
    const first = await finished(cli(['process', join(local, 'ACK_SO_20261120.csv'), '--config', ws.configFile, '--out', out]));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/ACK_SO_20261120\.csv\s+done\s+2\s+0\s+0\s+0\s+1/);
    expect(parseCsv(readFileSync(join(out, 'ACK_SO_20261120.result.csv'), 'utf8')).map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(readdirSync(local)).toEqual(['ACK_SO_20261120.csv']);
    const second = await finished(cli(['process', join(local, 'ACK_SO_20261120.csv'), '--config', ws.configFile]));
    expect(second.stdout).toMatch(/ACK_SO_20261120\.csv\s+duplicate/);
    expect(existsSync(join(local, 'ACK_SO_20261120.result.csv'))).toBe(true);
  });
});

describe('process --dry-run and map agree', () => {
  it('same lines and exit code for a file with a bad row, a file of the wrong layout, and a file no mapping matches', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const local = join(ws.dir, 'local');
    mkdirSync(local);
    copyFileSync(join(SAMPLES, 'KORR_20261120.csv'), join(local, 'KORR_20261120.csv'));
    writeFileSync(join(local, 'KORR_layout.csv'), 'Artikel;Grund\nSKU-00001;Bruch\n');
    writeFileSync(join(local, 'UNKNOWN_1.csv'), 'a,b\n1,2\n');
    const expected: Record<string, { code: number; kinds: string[] }> = {
      'KORR_20261120.csv': { code: 1, kinds: ['skipped', 'rejected', 'request'] },
      'KORR_layout.csv': { code: 1, kinds: ['file-rejected'] },
      'UNKNOWN_1.csv': { code: 1, kinds: ['file-rejected'] },
    };
    for (const [name, want] of Object.entries(expected)) {
      const file = join(local, name);
      const dry = await finished(cli(['process', file, '--config', ws.configFile, '--dry-run']));
      const map = await finished(cli(['map', file]));
      const lines = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l));
      expect([dry.code, map.code], `${name}: ${dry.stderr} ${map.stderr}`).toEqual([want.code, want.code]);
      expect(lines(dry.stdout).map((l) => l.kind), name).toEqual(want.kinds);
      expect(lines(map.stdout)).toEqual(lines(dry.stdout));
      expect(lines(map.stdout).every((l) => l.file === name)).toBe(true);
    }
    expect(readdirSync(local).sort()).toEqual(Object.keys(expected).sort());
  });
});

describe('wisbridge batch exit codes and summary', () => {
  it('0 when everything went through, 1 when some rows failed, 2 on a fatal error (401), with a summary table', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('ACK_SO_20261120.csv');
    const ok = await finished(cli(['batch', '--config', ws.configFile]));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^job\s+file\s+outcome\s+ok\s+error\s+skipped\s+uncertain\s+requests/);
    expect(ok.stdout).toMatch(/total\s+1 file\(s\)\s+2\s+0\s+0\s+0\s+1/);

    ws.drop('KORR_20261120.csv');
    const some = await finished(cli(['batch', '--config', ws.configFile]));
    expect(some.code, some.stderr).toBe(1);
    expect(some.stdout).toMatch(/KORR_20261120\.csv\s+failed\s+3\s+1\s+1\s+0/);

    writeFileSync(join(ws.dir, 'token'), 'not-a-valid-token');
    ws.drop('PICK_20261120.csv');
    const fatal = await finished(cli(['batch', '--config', ws.configFile]));
    expect(fatal.code).toBe(2);
    expect(fatal.stderr).toMatch(/^wisbridge batch: AUTHENTICATION: /m);
    expect(fatal.stderr).not.toContain('not-a-valid-token');
    expect(fatal.stderr).not.toMatch(/\n\s+at /);
    expect(ws.files('inbox')).toEqual(['PICK_20261120.csv']);
  });

  it('runs the export jobs too: a work list lands in the outbox and is acknowledged', async () => {
    const ws = workspace({
      url: emu.url, token: emu.token,
      extraYaml: 'exports:\n  - { name: so-out, work_type: customerShipments, drop: wms, service: wis, mapping: customer-shipments-export }',
    });
    ws.drop('PICK_20261120.csv');
    const r = await finished(cli(['batch', '--config', ws.configFile]));
    expect(r.stdout).toMatch(/PICK_20261120\.csv\s+failed/);
    expect(r.stdout).toMatch(/^so-out\s+customerShipments\s+\d+\s+[1-9]\d*\s+\S+\.csv/m);
    expect(r.code, r.stderr).toBe(1);
    const work = ws.files('outbox').filter((n) => n.startsWith('so-out'));
    expect(work.length).toBeGreaterThan(0);
    const pending = (await adminState(emu, ['customer_shipments'])).customer_shipments.filter((s: any) => s.list_status === 'pending' && s.warehouse_id === 1);
    expect(pending).toEqual([]);
  });

  it('a usage mistake is one clear line and exit 2; a mistyped option is told its closest name', async () => {
    const r = await finished(cli(['batch', '--nope']));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('wisbridge batch: USAGE: unknown option --nope (--help lists the options)\n');
    const typo = await finished(cli(['map', 'FILE.csv', '--mappings', 'mappings']));
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe('wisbridge map: USAGE: unknown option --mappings; did you mean --mapping? (--help lists the options)\n');
  });
});
