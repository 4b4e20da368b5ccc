import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'wisbridge-demo-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** As the README runs it: no arguments, no standard input, from the folder the user is in. */
const demo = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), 'demo', ...args], {
  cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000,
  env: { ...process.env, http_proxy: 'http://127.0.0.1:9', https_proxy: 'http://127.0.0.1:9' },
});

/** The rows of the table that follows a heading line, split on runs of 2+ spaces. */
function table(stdout: string, heading: string): string[][] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  const rows: string[][] = [];
  for (const line of lines.slice(start + 3)) {
    if (line.trim() === '') break;
    rows.push(line.split(/ {2,}/));
  }
  return rows;
}

function statusCounts(csv: string): Record<string, number> {
  const counts: Record<string, number> = { ok: 0, error: 0, skipped: 0, uncertain: 0 };
  for (const line of csv.trim().split('\r\n').slice(1)) {
    const status = line.match(/^\d+,(?:"(?:[^"]|"")*"|[^,]*),([a-z]+),/)?.[1];
    if (status) counts[status] += 1;
  }
  return counts;
}

describe('wisbridge demo', () => {
  it('runs end to end with no arguments and tells the truth in its tables', () => {
    const r = demo();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.stdout;
    // The sample rows that fail do so on purpose, and the demo says so beside its exit code.
    expect(out).toMatch(/row\(s\) failed and \d+ are uncertain: the samples include rows with mistakes on purpose,\nto show how they are reported\. The result files say why, row by row\. The demo itself succeeded \(exit 0\)\./);
    expect(out).toMatch(/emulator {2}http:\/\/127\.0\.0\.1:\d+/);
    const dir = join(work, 'demo');
    const outbox = join(dir, 'wms', 'outbox');

    const exports = table(out, '1. export pass');
    expect(exports.map((e) => e[0])).toEqual(['customer-shipments', 'outbound-transfers', 'inbound-transfers', 'supplier-shipments', 'customer-returns', 'products']);
    for (const [job, records, files, , , , name] of exports) {
      expect(Number(records), job).toBeGreaterThan(0);
      expect(files).toBe('1');
      // The work list holds exactly the records the table claims (header line + one line per record or more).
      const text = readFileSync(join(outbox, name), 'utf8');
      expect(text.trim().split(/\r?\n/).length, name).toBeGreaterThan(Number(records));
    }

    const samples = readdirSync(join(root, 'samples')).filter((n) => /^[A-Z].*\.(csv|txt|edi)$/.test(n) && !n.includes('.expected.'));
    const files = table(out, '2. inbound pass');
    const total = files.pop()!;
    expect(total[0]).toBe('total');
    expect(files.map((f) => f[0]).sort()).toEqual(samples.sort());
    const sum = { ok: 0, error: 0, skipped: 0, uncertain: 0 };
    for (const [name, outcome, ok, error, skipped, uncertain, resultFile] of files) {
      expect(['done', 'failed'], `${name}: ${outcome}`).toContain(outcome);
      const counts = statusCounts(readFileSync(join(outbox, resultFile), 'utf8'));
      expect({ ok: Number(ok), error: Number(error), skipped: Number(skipped), uncertain: Number(uncertain) }, name).toEqual(counts);
      expect(outcome, name).toBe(counts.error + counts.uncertain > 0 ? 'failed' : 'done');
      for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += counts[k];
    }
    expect(total.slice(2, 6).map(Number)).toEqual([sum.ok, sum.error, sum.skipped, sum.uncertain]);
    expect(sum.ok).toBeGreaterThan(20);
    // A deliberate mistake in a sample is reported, row by row.
    expect(readFileSync(join(outbox, 'SHIP_20261120_flat.result.csv'), 'utf8')).toMatch(/^7,SO-9999,error,.*is not a known customer shipment/m);
    expect(out).toContain(`${sum.error} row(s) failed`);

    // Every sample left the inbox for the archive; the config, journal and log are where the output says.
    expect(readdirSync(join(dir, 'wms', 'inbox'))).toEqual([]);
    expect(readdirSync(join(dir, 'wms', 'archive')).sort()).toEqual(samples.sort());
    for (const f of ['wisbridge.yaml', 'journal.sqlite', 'wisbridge.log', 'token']) expect(readdirSync(dir)).toContain(f);
    expect(out).toContain('wisbridge status --config demo/wisbridge.yaml');
    // The token is a secret: referenced from the config, never printed or logged.
    const token = readFileSync(join(dir, 'token'), 'utf8').trim();
    expect(readFileSync(join(dir, 'wisbridge.yaml'), 'utf8')).toContain('token: { file: token }');
    expect(out).not.toContain(token);
    expect(readFileSync(join(dir, 'wisbridge.log'), 'utf8')).not.toContain(token);

  });

  it('starts from a fresh folder on every run; --keep-emulator keeps serving until Ctrl-C', async () => {
    const dir = join(work, 'demo');
    mkdirSync(join(dir, 'wms', 'inbox'), { recursive: true });
    writeFileSync(join(dir, '.wisbridge-demo'), '');
    writeFileSync(join(dir, 'wms', 'inbox', 'leftover.csv'), 'x\n');
    const child = spawn(process.execPath, [join(root, 'bin/wisbridge.js'), 'demo', '--keep-emulator'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (;;) {
        if (/^TOKEN=\S+$/m.test(stdout)) break;
        if (child.exitCode !== null) throw new Error(`demo exited early: ${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const url = stdout.match(/keeps serving at (http:\/\/127\.0\.0\.1:\d+)/)![1];
      const token = stdout.match(/^TOKEN=(\S+)$/m)![1];
      const res = await fetch(`${url}/v1/customer-shipments.json?status=pending`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      // The demo handed the pending shipments over and the WMS confirmed two of them (ACK_SO sample): acknowledged.
      const state = await (await fetch(`${url}/_admin/state?only=customer_shipments`)).json() as { customer_shipments: Array<{ number: string; acknowledged_at: string | null }> };
      expect(state.customer_shipments.filter((s) => ['SO-1001', 'SO-1002'].includes(s.number)).every((s) => s.acknowledged_at !== null)).toBe(true);
      expect(readdirSync(join(dir, 'wms', 'inbox'))).toEqual([]);
      expect(readdirSync(join(dir, 'wms', 'archive'))).not.toContain('leftover.csv');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exit).toBe(0);
  });

  it('never wipes a folder it did not make', () => {
    const mine = join(work, 'precious');
    mkdirSync(mine);
    writeFileSync(join(mine, 'notes.txt'), 'keep me\n');
    const r = demo('--dir', mine);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^wisbridge demo: USAGE: .*precious exists and was not made by wisbridge demo/);
    expect(readFileSync(join(mine, 'notes.txt'), 'utf8')).toBe('keep me\n');
  });
});
