import { readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { duplicateKeys } from '../support/json-keys.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { cli, finished, korr, workspace } from '../pipeline/helpers.js';

const emu = useEmulator({ resetEachTest: true });

function capture() {
  const lines: string[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      pending += String(chunk);
      const parts = pending.split('\n');
      pending = parts.pop()!;
      lines.push(...parts);
      done();
    },
  });
  return { stream, lines };
}

function expectOnlyJsonLogs(stderr: string) {
  const lines = stderr.split('\n').filter(Boolean);
  for (const line of lines) {
    expect(() => JSON.parse(line), line).not.toThrow();
    expect(duplicateKeys(line), line).toEqual([]);
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('log lines', () => {
  it('the duplicate-key finder sees what JSON.parse hides', () => {
    expect(duplicateKeys('{"drop":"wms","msg":"x","drop":"wms"}')).toEqual(['drop']);
    expect(duplicateKeys('{"a":{"b":1,"c":"b:"},"b":[{"b":1},{"b":2}],"d":"\\"a\\":"}')).toEqual([]);
  });

  it('a child logger\'s bindings are not repeated by the call object, and a terminal gets ISO 8601 times', () => {
    const json = capture();
    createLogger({ level: 'debug', pretty: false, destination: json.stream }).child({ drop: 'wms', fileId: 3 }).info({ drop: 'wms', fileId: 3, size: 1 }, 'file moved');
    expect(json.lines).toHaveLength(1);
    expect(duplicateKeys(json.lines[0])).toEqual([]);
    expect(JSON.parse(json.lines[0])).toMatchObject({ drop: 'wms', fileId: 3, size: 1, msg: 'file moved' });

    const terminal = capture();
    createLogger({ level: 'info', pretty: true, destination: terminal.stream }).child({ drop: 'wms' }).info({ drop: 'wms' }, 'file moved');
    expect(terminal.lines[0]).toMatch(/^\[\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}\] INFO.*file moved/);
    expect(terminal.lines.filter((l) => l.includes('drop:'))).toHaveLength(1);
  });

  it('batch, retry and resolve: every stderr line is one JSON log without duplicate keys; retry and resolve answer on stdout in words', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    writeFileSync(ws.configFile, readFileSync(ws.configFile, 'utf8').replace('log: { level: fatal }', 'log: { level: debug }'));
    // SKU-00004 has 100 on hand: taking 500 fails until stock arrives.
    ws.drop('KORR_a.csv', korr(['SKU-00001;1;Fund;A-1;19.11.2026;;', 'SKU-00004;-500;Bruch;A-2;19.11.2026;;']));
    const batch = await finished(cli(['batch', '--config', ws.configFile]));
    expect(batch.code, batch.stderr).toBe(1);
    const batchLogs = expectOnlyJsonLogs(batch.stderr);
    expect(batchLogs.some((l) => l.msg === 'file moved' && l.drop === 'wms')).toBe(true);

    const retry = await finished(cli(['retry', '--config', ws.configFile, '--file', 'KORR_a.csv']));
    expect(retry.code, retry.stderr).toBe(1);
    expect(retry.stdout).toMatch(/^file \d+ KORR_a\.csv: re-drive 1, 1 row\(s\) sent again: 0 ok, 1 error, 0 uncertain\nfile is now failed; result file rewritten: outbox\/KORR_a\.result\.csv\n$/);
    const retryLogs = expectOnlyJsonLogs(retry.stderr);
    expect(retryLogs.find((l) => l.msg === 're-drive finished')).toMatchObject({ fileId: expect.any(Number), attempt: 2, sent: 1 });

    // The answer to B-1 is lost: the row is uncertain until a person resolves it.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    ws.drop('KORR_b.csv', korr(['SKU-00002;1;Fund;B-1;19.11.2026;;']));
    const second = await finished(cli(['batch', '--config', ws.configFile]));
    expect(second.code, second.stderr).toBe(1);
    expectOnlyJsonLogs(second.stderr);
    const resolve = await finished(cli(['resolve', '--config', ws.configFile, '--file', 'KORR_b.csv', '--applied', '--note', 'found in the service']));
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(resolve.stdout).toMatch(/^file \d+ KORR_b\.csv: 1 row\(s\) marked applied \(ok\); file is now done; result file rewritten: outbox\/KORR_b\.result\.csv\n$/);
    expect(expectOnlyJsonLogs(resolve.stderr).some((l) => l.msg === 'uncertain rows resolved')).toBe(true);
  });
});
