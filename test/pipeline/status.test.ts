import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { cli, finished, ROOT, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

describe('wisbridge status', () => {
  it('lists duplicates and files rejected before a claim, labels document counts, and says when a list is cut', async () => {
    // One file at a time, so the recent list (newest first) is the files' order in the inbox.
    const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: '  - { name: wms-in, drop: wms, service: wis, files_in_flight: 1 }' });
    ws.drop('KORR_20261120.csv');
    expect((await finished(cli(['batch', '--config', ws.configFile]))).code).toBe(1);
    ws.drop('KORR_20261120.csv', undefined, 'KORR_again.csv');
    ws.drop('notes.txt', 'hello\n');
    const second = await finished(cli(['batch', '--config', ws.configFile]));
    expect(second.stdout).toMatch(/KORR_again\.csv\s+duplicate/);
    expect(second.stdout).toMatch(/notes\.txt\s+rejected/);

    const status = await finished(cli(['status', '--config', ws.configFile]));
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/recent files \(3\); counts are documents/);
    expect(status.stdout).toMatch(/ok docs\s+error docs\s+skipped docs\s+uncertain docs/);
    expect(status.stdout).toMatch(/\n1\s+\S+\s+KORR_again\.csv\s+duplicate\s+0\s+0\s+0\s+0\s+\S+\s+duplicate: the same content was already processed as KORR_2/);
    expect(status.stdout).toMatch(/\n-\s+\S+\s+notes\.txt\s+rejected\s+.*MAPPING_NOT_FOUND/);
    expect(status.stdout).toMatch(/\n1\s+\S+\s+KORR_20261120\.csv\s+failed\s+3\s+1\s+1\s+0/);
    expect(status.stdout).toMatch(/failed documents \(1\):/);
    expect(status.stdout).toMatch(/journal: .*journal\.sqlite \(\d+\.\d MiB, oldest entry 20\d\d-/);

    const cut = await finished(cli(['status', '--config', ws.configFile, '--limit', '2']));
    expect(cut.stdout).toMatch(/recent files \(showing 2 of 3\)/);
    expect(cut.stdout).not.toContain('KORR_20261120.csv  ');

    const json = JSON.parse((await finished(cli(['status', '--config', ws.configFile, '--json']))).stdout);
    expect(json.files.map((f: { name: string; status: string }) => [f.name, f.status])).toEqual([
      ['notes.txt', 'rejected'], ['KORR_again.csv', 'duplicate'], ['KORR_20261120.csv', 'failed'],
    ]);
    expect(json.filesTotal).toBe(3);
  });

  it('--file NAME|ID shows the input rows of one file, filtered by status, counted like the result file', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    await finished(cli(['batch', '--config', ws.configFile]));
    const resultStatuses = ws.result('KORR_20261120.result.csv').map((r) => r.status);

    const all = await finished(cli(['status', '--config', ws.configFile, '--file', 'KORR_20261120.csv']));
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain('file 1: KORR_20261120.csv (drop wms, mapping inventory-adjustments) — failed');
    expect(all.stdout).toContain('input rows: 5 (3 ok, 1 error, 1 skipped)');
    // batch ran as an instance of its own: its claim is the file's history.
    expect(all.stdout).toMatch(/\ninstances:\n {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \S+ claimed it, fencing token 1\n/);
    expect(resultStatuses.filter((s) => s === 'ok')).toHaveLength(3);
    expect(all.stdout).toMatch(/rows \(5\):\nline\s+key\s+status\s+returned\s+error/);
    expect(all.stdout).toMatch(/\n2\s+SKU-00001\s+ok\s+\{/);

    const errors = await finished(cli(['status', '--config', ws.configFile, '--file', '1', '--status', 'error']));
    expect(errors.stdout).toMatch(/rows \(1\):/);
    expect(errors.stdout).toMatch(/\n6\s+\S*\s+error\s+.*"3x" is not a number/);
    expect(errors.stdout).not.toMatch(/\n2\s+SKU-00001/);

    const cut = JSON.parse((await finished(cli(['status', '--config', ws.configFile, '--file', '1', '--rows', '2', '--json']))).stdout);
    expect(cut).toMatchObject({ total: 5, matching: 5, rows: { ok: 3, error: 1, skipped: 1 }, owners: [{ from: null, token: 1, reason: 'claim' }] });
    expect(cut.shown.map((r: { line: number }) => r.line)).toEqual([2, 3]);
    expect(cut.shown[0].returned).not.toBeNull();
    const text = await finished(cli(['status', '--config', ws.configFile, '--file', '1', '--rows', '2']));
    expect(text.stdout).toContain('rows (showing 2 of 5):');

    const bad = await finished(cli(['status', '--config', ws.configFile, '--file', '1', '--status', 'nope']));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^wisbridge status: USAGE: --status takes row statuses/);
    const missing = await finished(cli(['status', '--config', ws.configFile, '--file', 'NOPE.csv']));
    expect(missing.stderr).toMatch(/USAGE: no file named "NOPE\.csv"/);

    // Names the journal met but never claimed: a re-drop of the same content, a file rejected unread.
    ws.drop('KORR_20261120.csv', undefined, 'KORR_AGAIN.csv');
    ws.drop('BAD\\NAME.csv', 'x');
    await finished(cli(['batch', '--config', ws.configFile]));
    const again = await finished(cli(['status', '--config', ws.configFile, '--file', 'KORR_AGAIN.csv']));
    // An answer, not a usage error: exit 0, on stdout, no `USAGE:`.
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^"KORR_AGAIN\.csv" was not applied: on \S+ it was a duplicate of file 1 \(KORR_20261120\.csv\) — see wisbridge status --file 1\n$/);
    expect(again.stderr).not.toContain('USAGE');
    const bad2 = await finished(cli(['status', '--config', ws.configFile, '--file', 'BAD\\NAME.csv']));
    expect(bad2.code).toBe(0);
    expect(bad2.stdout).toMatch(/"BAD\\NAME\.csv" was never processed: it was rejected on \S+ before it was read \(FILE_NAME: /);
  });

  it('wisbridge --version prints the version of package.json', async () => {
    const r = await finished(cli(['--version']));
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`wisbridge ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}`);
  });
});
