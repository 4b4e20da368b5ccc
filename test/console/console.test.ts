import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { rawDatabase } from '../../src/journal/test-support.js';
import { testHooks } from '../../src/journal/testing.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { parseCsv, ROOT } from '../pipeline/helpers.js';
import { until, useCleanups } from '../service/support.js';
import { bridgeWithFailures, consoleClient } from './support.js';
import { BridgeService } from '../../src/service/service.js';
import { flowRunners } from '../../src/service/runners.js';

const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

describe('console: actions, confirmed, CSRF-protected and recorded', () => {
  it('re-drives failed rows and resolves an uncertain row through the CLI code paths; the note reaches the result file', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const c = consoleClient(b.url);
    const journal = await b.bridge.runtime.journal();
    const files = await journal.listFiles({ limit: 10 });
    const a = files.find((f) => f.name === 'KORR_a.csv')!;
    const bFile = files.find((f) => f.name === 'KORR_b.csv')!;

    const confirm = await c.get(`/console/files/${a.fileId}/redrive`);
    expect(confirm.text).toContain('Re-drive the failed rows');
    const csrf = c.csrfOf(confirm.text);
    expect(csrf).not.toBe('');
    // Without the token nothing happens.
    expect((await c.post(`/console/files/${a.fileId}/redrive`, { csrf: 'forged' })).status).toBe(403);
    expect((await journal.getFile(a.fileId)).redrives).toBe(0);
    // Stock arrives, then the re-drive: only the failed row is sent.
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    const redriven = await c.post(`/console/files/${a.fileId}/redrive`, { csrf, by: 'Maria' });
    expect(redriven.status).toBe(200);
    expect(redriven.text).toMatch(/1 row\(s\) sent again, 1 ok, 0 error, 0 uncertain; file is now done/);
    expect(await journal.getFile(a.fileId)).toMatchObject({ status: 'done', redrives: 1 });

    const [item] = await journal.uncertainItems(bFile.fileId);
    const form = await c.get(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`);
    // A second operator opened the same row meanwhile.
    const secondForm = await c.get(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`);
    expect(form.text).toContain('check the stock of SKU-00005');
    const resolved = await c.post(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`, {
      csrf: c.csrfOf(form.text), by: 'Maria', resolution: 'applied', note: 'move 77 found in the service',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.location).toMatch(/^\/console\/actions\/\d+$/);
    expect(resolved.text).toContain('file is now done');
    const row = parseCsv(readFileSync(join(b.outbox, 'KORR_b.result.csv'), 'utf8')).find((r) => r.line === '2')!;
    expect(row).toMatchObject({ status: 'ok', message: 'applied: move 77 found in the service', check: '' });
    // Resolving twice is refused, and recorded as such.
    const again = await c.post(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`, { csrf: c.csrfOf(secondForm.text), resolution: 'applied', note: 'x' });
    expect(again.text).toContain('is not uncertain (resolved already?)');

    const raw = await openJournal(journal.address);
    try {
      const actions = rawDatabase(raw).prepare('SELECT action, file_id, actor, via, outcome, at FROM operator_actions ORDER BY id').all();
      expect(actions).toEqual([
        { action: 'redrive', file_id: a.fileId, actor: 'Maria (console token)', via: 'console', outcome: 'ok', at: expect.stringMatching(/^\d{4}-/) },
        { action: 'resolve applied', file_id: bFile.fileId, actor: 'Maria (console token)', via: 'console', outcome: 'ok', at: expect.any(String) },
        { action: 'resolve applied', file_id: bFile.fileId, actor: 'console token', via: 'console', outcome: 'failed', at: expect.any(String) },
      ]);
      expect((await testHooks(raw).itemHistory(item.itemId))[0]).toMatchObject({ status: 'uncertain', hint: expect.stringContaining('SKU-00005') });
    } finally {
      await raw.close();
    }
    const log = await c.get('/console/actions');
    expect(log.text).toContain('Maria (console token)');

    const download = await c.get(`/console/files/${bFile.fileId}/result`);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="KORR_b.result.csv"');
    expect(download.text).toContain('applied: move 77 found in the service');
  });

  it('a re-drive under way when the bridge stops finishes before the journal closes; none starts once it is stopping', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const c = consoleClient(b.url);
    const journal = await b.bridge.runtime.journal();
    const a = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
    const csrf = c.csrfOf((await c.get(`/console/files/${a.fileId}/redrive`)).text);
    // A second tab's form: sent once the bridge is stopping.
    const secondCsrf = c.csrfOf((await c.get(`/console/files/${a.fileId}/redrive`)).text);
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    // The service answers slowly: the re-drive's request is on the wire when the bridge is told to stop.
    await setFaults(emu, { latency_ms: 1500, path_prefix: '/v1/inventory' });
    // Not followed to its result page: the journal closes right after the action.
    const redriven = c.request(`/console/files/${a.fileId}/redrive`, { form: { csrf, by: 'Maria' } });
    await until(async () => (await journal.getFile(a.fileId)).redrives === 1, 'the re-drive to start');
    const stopped = b.bridge.stop('test');
    const refused = await c.post(`/console/files/${a.fileId}/redrive`, { csrf: secondCsrf, by: 'Maria' });
    expect(refused.text).toContain('the bridge is stopping: nothing was done');
    expect((await redriven).status).toBe(303);
    await stopped;
    const reopened = await openJournal(b.loaded.journal);
    try {
      expect(await reopened.getFile(a.fileId)).toMatchObject({ status: 'done', redrives: 1 });
      expect(await reopened.backlog()).toMatchObject({ sentRequests: 0 });
      const actions = rawDatabase(reopened).prepare('SELECT action, outcome, detail FROM operator_actions ORDER BY id').all();
      expect(actions).toEqual([{ action: 'redrive', outcome: 'ok', detail: expect.stringMatching(/1 row\(s\) sent again, 1 ok, 0 error, 0 uncertain; file is now done/) }]);
    } finally {
      await reopened.close();
    }
  });

  it('wisbridge resolve and retry on the command line are recorded in the same audit trail (via cli), shown by the console', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/wisbridge.js'), ...args, '--config', b.env.file],
      { encoding: 'utf8', env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token } });
    // A SQLite journal serves one instance: beside the running bridge the command says where to act instead.
    const beside = cli('resolve', '--file', 'KORR_b.csv', '--not-applied', '--note', 'no move for B-1', '--by', 'Jo');
    expect(beside.status).toBe(2);
    expect(beside.stderr).toContain('beside a running instance, re-drive and resolve from its console');
    await b.bridge.stop('test');
    const first = cli('resolve', '--file', 'KORR_b.csv', '--not-applied', '--note', 'no move for B-1', '--by', 'Jo');
    expect(first.status, first.stderr).toBe(1); // the row is now failed: exit 1, as the exit-code table says
    const again = cli('resolve', '--file', 'KORR_b.csv', '--applied', '--note', 'x', '--by', 'Jo');
    expect(again.status).toBe(2);
    const restarted = new BridgeService(b.loaded, { runners: flowRunners });
    cleanups.push(() => restarted.stop('test'));
    await restarted.start();
    const journal = await restarted.runtime.journal();
    const rows = rawDatabase(journal).prepare(`SELECT action, file_id, target, actor, via, outcome FROM operator_actions ORDER BY id`).all();
    const fileId = (await journal.listFiles({ limit: 5 })).find((f) => f.name === 'KORR_b.csv')!.fileId;
    expect(rows).toEqual([
      { action: 'resolve not-applied', file_id: fileId, target: 'all uncertain rows', actor: 'Jo', via: 'cli', outcome: 'ok' },
      { action: 'resolve applied', file_id: null, target: 'all uncertain rows', actor: 'Jo', via: 'cli', outcome: 'failed' },
    ]);
    const page = await consoleClient(restarted.url!).get('/console/actions');
    expect(page.text).toContain('resolve not-applied');
    expect(page.text).toContain('no move for B-1');
  });
});
