import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { adminState } from '../support/emulator.js';

const dir = mkdtempSync(join(tmpdir(), 'wisbridge-emu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('state in a SQLite file', () => {
  it('survives a restart on the same file', async () => {
    const file = join(dir, 'state.db');
    const first = await startEmulator({ db: file, today: '2026-11-22' });
    const token = first.mintToken([1]);
    const list = await fetch(`${first.url}/v1/customer-shipments.json`, { headers: { authorization: `Bearer ${token}` } });
    const id = ((await list.json()) as any).data[0].id;
    const ack = await fetch(`${first.url}/v1/customer-shipments/acknowledge.json`, { method: 'PUT', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ shipments: [{ id }] }) });
    expect(ack.status).toBe(200);
    await first.close();
    const second = await startEmulator({ db: file, today: '2026-11-22', seed: 99 });
    const state = await adminState(second, ['customer_shipments']);
    expect(state.seed).toBe(1);
    expect(state.customer_shipments.find((r: any) => r.id === id).acknowledged_at).not.toBeNull();
    const stillValid = await fetch(`${second.url}/v1/customer-shipments.json?status=open&ids=${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await stillValid.json()) as any).data).toHaveLength(1);
    await second.close();
  });
});

function runCli(args: string[]): Promise<{ firstLine: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/wisbridge.js', 'emulator', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let firstLine = '';
    child.stdout.on('data', async (d: Buffer) => {
      out += d.toString();
      if (!firstLine && out.includes('\n')) {
        firstLine = out.split('\n')[0]!;
        const url = /http:\/\/\S+/.exec(firstLine)?.[0];
        if (url) {
          const res = await fetch(`${url}/_admin/state?only=warehouses`).catch(() => undefined);
          firstLine += res?.status === 200 ? ' [admin ok]' : ' [admin failed]';
        }
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.on('exit', (code) => resolve({ firstLine, stderr: err, code }));
  });
}

describe('wisbridge emulator command', () => {
  it('prints the base URL on the first stdout line and serves it (--port 0)', async () => {
    const r = await runCli(['--port', '0', '--seed', '3', '--today', '2026-11-22']);
    expect(r.firstLine).toMatch(/^emulator listening on http:\/\/127\.0\.0\.1:\d+ \[admin ok\]$/);
    expect(r.code).toBe(0);
  });

  it('a bad option is one clear USAGE line, never a stack trace', async () => {
    for (const args of [['--scale', 'huge'], ['--today', '2026-02-30']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/USAGE: /);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });
});
