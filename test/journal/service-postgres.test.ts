import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, inject, it } from 'vitest';
import { openJournal, SCHEMA_VERSION } from '../../src/journal/index.js';
import { cli, finished, korr, workspace } from '../pipeline/helpers.js';
import { CONSOLE_TOKEN, consoleClient } from '../console/support.js';
import { until, useCleanups } from '../service/support.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { TEST_PG_PASSWORD_ENV } from '../support/postgres.js';
import { pgWorkspace as workspaceOn } from './pg-workspace.js';

/**
 * `config check`, `run` and `console` through the CLI with the journal on the run's real PostgreSQL server (the
 * operator's one-shot commands: commands-postgres.test.ts).
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const server = inject('postgres');
const pgWorkspace = (options?: Parameters<typeof workspaceOn>[2]) => workspaceOn(emu, cleanups, options);

describe('config check reaches the journal on PostgreSQL', () => {
  it('ok on a good database; a refused login and a missing database are problems in plain words, no stack, no password', async () => {
    const ws = await pgWorkspace();
    // An empty database (the first start creates the tables), then a journal in use; the password from a file too.
    const ok = await ws.run('config', 'check');
    expect([ok.code, ok.stderr, ok.stdout]).toEqual([0, '', `${ws.configFile}: ok\n`]);
    const show = await ws.run('config', 'show');
    expect(show.stdout).toContain(`journal:\n  url: ${ws.db.url}\n  password: "[secret from environment variable ${TEST_PG_PASSWORD_ENV}]"\n`);
    ws.drop('KORR_first.csv', korr(['SKU-00001;1;Fund;F-1;19.11.2026;;']));
    expect((await ws.run('batch')).code).toBe(0);
    writeFileSync(join(ws.dir, 'pg.pw'), `${server.owner.password}\n`);
    const byFile = join(ws.dir, 'by-file.yaml');
    writeFileSync(byFile, readFileSync(ws.configFile, 'utf8').replace(`{"env":"${TEST_PG_PASSWORD_ENV}"}`, '{"file":"pg.pw"}'));
    const used = await finished(cli(['config', 'check', '--config', byFile], { [TEST_PG_PASSWORD_ENV]: '' }));
    expect([used.code, used.stderr, used.stdout]).toEqual([0, '', `${byFile}: ok\n`]);

    const wrong = await finished(cli(['config', 'check', '--config', ws.configFile], { [TEST_PG_PASSWORD_ENV]: 'not-the-password' }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(`${ws.configFile}:1:10: journal: JOURNAL: the journal database postgres://wisbridge@127.0.0.1:${server.port}/${ws.db.name} ` +
      'refused the login of role "wisbridge": wrong password (password authentication failed for user "wisbridge")\n');
    expect(wrong.stderr + wrong.stdout).not.toContain('not-the-password');

    const missing = join(ws.dir, 'missing.yaml');
    writeFileSync(missing, readFileSync(ws.configFile, 'utf8').replace(`/${ws.db.name}"`, '/no_such_db"'));
    const gone = await finished(cli(['config', 'check', '--config', missing]));
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`${missing}:1:10: journal: JOURNAL: the database "no_such_db" does not exist on 127.0.0.1:${server.port}: ` +
      'create it (CREATE DATABASE) or correct the URL\n');
    const down = join(ws.dir, 'down.yaml');
    writeFileSync(down, readFileSync(ws.configFile, 'utf8').replace(`127.0.0.1:${server.port}/`, '127.0.0.1:1/'));
    const refused = await finished(cli(['config', 'check', '--config', down]));
    expect([refused.code, refused.stderr]).toEqual([1, `${down}:1:10: journal: JOURNAL: cannot reach the journal database postgres://wisbridge@127.0.0.1:1/${ws.db.name}: ` +
      'connection refused at 127.0.0.1:1 (is PostgreSQL running and listening there?)\n']);
    for (const r of [wrong, gone, refused]) {
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stderr).not.toContain(server.owner.password);
    }
    // The commands that open the journal say the same in one line, exit 2.
    const status = await finished(cli(['status', '--config', ws.configFile], { [TEST_PG_PASSWORD_ENV]: 'not-the-password' }));
    expect([status.code, status.stdout]).toEqual([2, '']);
    expect(status.stderr).toBe(`wisbridge status: JOURNAL: the journal database postgres://wisbridge@127.0.0.1:${server.port}/${ws.db.name} ` +
      'refused the login of role "wisbridge": wrong password (password authentication failed for user "wisbridge")\n');
    // --skip-secrets checks the shape only: no password, no connection.
    expect((await finished(cli(['config', 'check', '--skip-secrets', '--config', missing]))).code).toBe(0);
    // batch and run check the same before they start: one line, exit 2.
    const batch = await finished(cli(['batch', '--config', ws.configFile], { [TEST_PG_PASSWORD_ENV]: 'not-the-password' }));
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/^wisbridge batch: CONFIG_INVALID: cannot start: .*journal: JOURNAL: .*refused the login of role "wisbridge": wrong password/);
    expect(batch.stderr).not.toMatch(/\n\s+at /);

    // A journal a newer bridge has migrated: this one would refuse to open it, and says so beforehand.
    await ws.query("INSERT INTO schema_version (version, applied_at) VALUES (99, '2030-01-01T00:00:00.000Z')");
    const newer = await ws.run('config', 'check');
    expect([newer.code, newer.stderr]).toEqual([1, expect.stringMatching(/^\S+:1:10: journal: JOURNAL: the journal has schema version 99, newer than this bridge \(\d+\): upgrade wisbridge/)]);
  });
});

describe('config check reaches the journal on SQLite too', () => {
  it('a file that is not a journal and a journal newer than this bridge are problems; a journal in use is ok', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    cleanups.push(() => rmSync(ws.dir, { recursive: true, force: true }));
    const check = () => finished(cli(['config', 'check', '--config', ws.configFile]));
    const file = join(ws.dir, 'journal.sqlite');
    // Before the first start: the file does not exist, its folder can be written.
    expect(await check()).toMatchObject({ code: 0, stderr: '' });
    writeFileSync(file, 'not a database, just text that is long enough to be read as a header of one\n'.repeat(20));
    const text = await check();
    expect([text.code, text.stderr]).toEqual([1, `${ws.configFile}:1:10: journal: JOURNAL: cannot open the journal ${file}: file is not a database\n`]);

    rmSync(file);
    const journal = await openJournal(file);
    await journal.close();
    expect(await check()).toMatchObject({ code: 0, stderr: '' });
    const db = new Database(file);
    db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (99, ?)').run('2030-01-01T00:00:00.000Z');
    db.close();
    const newer = await check();
    expect([newer.code, newer.stderr]).toEqual([1, `${ws.configFile}:1:10: journal: JOURNAL: the journal has schema version 99, newer than this bridge (${SCHEMA_VERSION}): ` +
      'upgrade wisbridge, or point it at a journal of its own version (a journal is never migrated backwards)\n']);
  });
});

describe('the service and the console on PostgreSQL', () => {
  it('run processes a file dropped into the inbox and exits 0 on SIGTERM', async () => {
    const ws = await pgWorkspace();
    const child = cli(['run', '--config', ws.configFile]);
    const exit = finished(child);
    cleanups.push(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
    // Written under a dot-name (never taken) and renamed: the watcher never sees half a file.
    ws.drop('KORR_live.csv', korr(['SKU-00001;1;Fund;L-1;19.11.2026;;']), '.KORR_live.csv');
    renameSync(join(ws.folder('inbox'), '.KORR_live.csv'), join(ws.folder('inbox'), 'KORR_live.csv'));
    const ended = exit.then((r) => { throw new Error(`run ended before the file was processed (${r.code}): ${r.stderr}`); });
    await Promise.race([until(() => ws.files('outbox').length + ws.files('error').length > 0, 'the result file'), ended]);
    expect([ws.files('outbox'), ws.files('error')]).toEqual([['KORR_live.result.csv'], []]);
    expect(ws.result('KORR_live.result.csv').map((r) => r.status)).toEqual(['ok']);
    await until(() => ws.files('archive').includes('KORR_live.csv'), 'the archive move');
    child.kill('SIGTERM');
    const r = await exit;
    expect(r.code, r.stderr).toBe(0);
    expect(await ws.withJournal(async (journal) => (await journal.listFiles({ limit: 5 })).map((f) => [f.name, f.status]))).toEqual([['KORR_live.csv', 'done']]);
  });

  it('console serves the journal\'s pages standalone, resolves an uncertain row, and exits 0 on SIGTERM', async () => {
    const ws = await pgWorkspace({ extraYaml: 'console:\n  auth: { bearer_token: { file: console-token } }' });
    writeFileSync(join(ws.dir, 'console-token'), `${CONSOLE_TOKEN}\n`);
    ws.drop('KORR_a.csv', korr(['SKU-00001;1;Fund;A-1;19.11.2026;;', 'SKU-00004;-500;Bruch;A-2;19.11.2026;;']));
    expect((await ws.run('batch')).code).toBe(1);
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    ws.drop('KORR_b.csv', korr(['SKU-00005;3;Fund;B-1;19.11.2026;;']));
    expect((await ws.run('batch')).code).toBe(1);
    const b = await ws.withJournal(async (journal) => (await journal.latestFileNamed('KORR_b.csv'))!);
    const [item] = await ws.withJournal((journal) => journal.uncertainItems(b.fileId, { limit: 5 }));

    const child = cli(['console', '--config', ws.configFile, '--port', '0']);
    const exit = finished(child);
    cleanups.push(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const c = consoleClient(await until(() => /console: (http:\/\/[\d.:]+)\/console/.exec(out)?.[1], 'the console to listen'));
    for (const [path, text] of [
      ['/console', '<b>1</b> uncertain document(s)'], ['/console/files', 'KORR_a.csv'], [`/console/files/${b.fileId}`, 'SKU-00005'], ['/console/uncertain', 'SKU-00005'],
      ['/console/exports', 'Exports'], ['/console/actions', 'Actions log'],
    ]) {
      const page = await c.get(path!);
      expect([path, page.status]).toEqual([path, 200]);
      expect(page.text, path).toContain(text);
    }
    const form = await c.get(`/console/files/${b.fileId}/resolve?item=${item!.itemId}`);
    const resolved = await c.post(`/console/files/${b.fileId}/resolve?item=${item!.itemId}`, { csrf: c.csrfOf(form.text), resolution: 'applied', note: 'move 77 found', by: 'Maria' });
    expect([resolved.status, resolved.text]).toEqual([200, expect.stringContaining('file is now done')]);
    const download = await c.get(`/console/files/${b.fileId}/result`);
    expect(download.text).toContain('applied: move 77 found');
    expect(ws.read('outbox', 'KORR_b.result.csv')).toBe(download.text);
    child.kill('SIGTERM');
    const r = await exit;
    expect(r.code, r.stderr).toBe(0);
    await ws.withJournal(async (journal) => {
      expect((await journal.console.listActions({ limit: 5 })).map((a) => [a.action, a.actor, a.via, a.outcome]))
        .toEqual([['download', 'token holder', 'console', 'ok'], ['resolve applied', 'Maria (console token)', 'console', 'ok']]);
    });
  });
});
