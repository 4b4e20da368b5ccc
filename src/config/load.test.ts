import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { isWisbridgeError } from '../errors.js';
import { parseDropOptions } from '../drops/create.js';
import { SECRET_DROP_OPTIONS, secretOption, sftpDropOptionsSchema, type SecretDropOption } from '../drops/options.js';
import { REDACTED_PATHS, SECRET_OPTION_NAMES } from '../log.js';
import { createRuntime } from '../runtime/runtime.js';
import { checkConfigText } from './check-text.js';
import { loadConfig } from './load.js';
import { VALID } from './test-support.js';


describe('configuration', () => {
  it('accepts a valid file and fills in the documented defaults', () => {
    const { config, problems } = checkConfigText(VALID, 'wisbridge.yaml');
    expect(problems).toEqual([]);
    expect(config!.services.main!.batch_size).toBe(100);
    expect(config!.exports[0]!.acknowledge).toBe('on-export');
    expect(config!.drops.local).toMatchObject({ type: 'local', inbox: 'inbox', settleMs: 2000 });
    expect(config!.inbound[0]!.watch).toBe(true);
  });

  it('names file, line and column of a wrong value', () => {
    const text = VALID.replace('port: 2222', 'port: "twenty"');
    const { problems } = checkConfigText(text, 'wisbridge.yaml');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'wisbridge.yaml', line: 14, col: 11 });
    expect(problems[0]!.message).toMatch(/^drops\.partner\.port: /);
  });

  it('refuses inline secrets: secrets are references only', () => {
    const text = VALID.replace('password: { file: secrets/sftp-password }', 'password: hunter2-secret');
    const { problems } = checkConfigText(text, 'c.yaml');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]!.line).toBe(16);
    expect(JSON.stringify(problems)).not.toContain('hunter2-secret');
  });

  it('reports unknown drops and services referenced by jobs, and duplicate job names', () => {
    const text = VALID.replace('drop: partner', 'drop: nowhere').replace('name: orders', 'name: nightly');
    const { problems } = checkConfigText(text, 'c.yaml');
    const messages = problems.map((p) => p.message);
    expect(messages).toContain('inbound.0.drop: unknown drop "nowhere" (known: local, partner)');
    expect(messages).toContain('exports.0.name: job name "nightly" is used twice');
  });

  it('reports a bad cron expression and an unknown time zone with their positions', () => {
    const text = VALID.replace('"0 2 * * *"', '"61 2 * * *"').replace('cutoff: { cron: "0 6 * * *", timezone: Europe/Berlin }', 'cutoff: { cron: "0 6 * * *", timezone: Mars/Olympus }');
    const { problems } = checkConfigText(text, 'c.yaml');
    expect(problems.map((p) => [p.line, p.message.split(':')[0]])).toEqual([
      [22, 'inbound.0.schedule.cron'],
      [25, 'inbound.0.expect.0.cutoff.timezone'],
    ]);
  });

  it('accepts an old camelCase spelling with a warning naming the new key, logged once by the runtime', async () => {
    const text = VALID.replace('    root: ./drop', '    root: ./drop\n    settleMs: 250\n    watchEvents: false')
      .replace('host_key_fingerprint:', 'hostKeyFingerprint:');
    const { config, problems, warnings } = checkConfigText(text, 'c.yaml');
    expect(problems).toEqual([]);
    expect(config!.drops.local).toMatchObject({ settleMs: 250, watchEvents: false });
    expect(warnings.map((w) => [w.line, w.message])).toEqual([
      [11, 'drops.local.settleMs: deprecated spelling; write `settle_ms` (the old name still works for now)'],
      [12, 'drops.local.watchEvents: deprecated spelling; write `watch_events` (the old name still works for now)'],
      [19, 'drops.partner.hostKeyFingerprint: deprecated spelling; write `host_key_fingerprint` (the old name still works for now)'],
    ]);
    const dir = await mkdtemp(join(tmpdir(), 'wisbridge-config-'));
    await writeFile(join(dir, 'wisbridge.yaml'), text);
    const loaded = await loadConfig(join(dir, 'wisbridge.yaml'));
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    createRuntime(loaded, { logger });
    createRuntime(loaded, { logger });
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(warnings.map((w) => w.message));
  });

  it('answers an unknown key with the closest known one, at the key\'s position', () => {
    const text = VALID.replace('    root: ./drop', '    root: ./drop\n    setle_ms: 250').replace('    port: 2222', '    port: 2222\n    colour: blue')
      .replace('    url: http://127.0.0.1:8080', '    url: http://127.0.0.1:8080\n    batchsize: 5');
    const { problems } = checkConfigText(text, 'c.yaml');
    expect(problems.map((p) => [p.line, p.col, p.message])).toEqual([
      [6, 5, 'services.main.batchsize: unknown option; did you mean `batch_size`?'],
      [12, 5, 'drops.local.setle_ms: unknown option; did you mean `settle_ms`?'],
      [17, 5, 'drops.partner.colour: unknown option'],
    ]);
  });

  it('a section or option left out is "required", not zod\'s "expected record, received undefined"', () => {
    const { problems } = checkConfigText('journal: ./j.sqlite\nmappings: ./mappings\n', 'c.yaml');
    expect(problems.map((p) => [p.line, p.col, p.message])).toEqual([[1, 1, 'services: is required'], [1, 1, 'drops: is required']]);
    const noUrl = checkConfigText(VALID.replace('    url: http://127.0.0.1:8080\n', ''), 'c.yaml');
    expect(noUrl.problems.map((p) => p.message)).toEqual(['services.main.url: is required']);
    const badUrl = checkConfigText(VALID.replace('    url: http://127.0.0.1:8080', '    url: wis.example.com'), 'c.yaml');
    expect(badUrl.problems.map((p) => p.message)).toEqual(['services.main.url: must be an absolute http(s) URL']);
  });

  it('a value of the wrong type says what was expected in plain words, and never echoes text (it may be a secret)', () => {
    const yes = checkConfigText(VALID.replace('    schedule: { cron: "0 2 * * *", timezone: Europe/Berlin }', '    watch: yes\n    schedule: { cron: "0 2 * * *", timezone: Europe/Berlin }'), 'c.yaml');
    expect(yes.problems.map((p) => p.message)).toEqual(['inbound.0.watch: expected true or false, not "yes", which YAML 1.2 reads as text: write true or false']);
    const port = checkConfigText(VALID.replace('port: 2222', 'port: "s3cr3t-port"'), 'c.yaml');
    expect(port.problems.map((p) => p.message)).toEqual(['drops.partner.port: expected a number, not text']);
  });

  it('reports every problem in one run: the lease rule and the jobs\' references beside a mistake elsewhere', () => {
    const text = `${VALID.replace('port: 2222', 'port: "twenty"').replace('drop: partner', 'drop: nowhere')}instance: { lease_ms: 10000, heartbeat_ms: 8000 }\n`;
    const { problems } = checkConfigText(text, 'c.yaml');
    expect(problems.map((p) => p.message)).toEqual(expect.arrayContaining([
      'drops.partner.port: expected a number, not text',
      'instance.heartbeat_ms: heartbeat_ms (8000) must be at most half of lease_ms (10000), so that a missed heartbeat does not lose the leases',
      'inbound.0.drop: unknown drop "nowhere" (known: local, partner)',
    ]));
    expect(problems).toHaveLength(3);
  });

  it('takes requests_in_flight of a job and of a service, and leaves it unset when not given', () => {
    const { config } = checkConfigText(VALID.replace('    watch: false\n', '').replace('    drop: partner\n', '    drop: partner\n    requests_in_flight: 6\n'), 'c.yaml');
    expect(config!.inbound[0]!.requests_in_flight).toBe(6);
    expect(config!.services.main!.requests_in_flight).toBeUndefined();
  });

  it('a value not among the allowed ones names the closest of them', () => {
    const { problems } = checkConfigText(VALID.replace('work_type: customerShipments', 'work_type: customerShipment'), 'c.yaml');
    expect(problems.map((p) => p.message)).toEqual([
      'exports.0.work_type: Invalid option: expected one of "customerShipments"|"outboundTransfers"|"inboundTransfers"|"supplierShipments"|"customerReturns"|"products"; did you mean "customerShipments"?',
    ]);
    const far = checkConfigText(VALID.replace('work_type: customerShipments', 'work_type: orders'), 'c.yaml');
    expect(far.problems.map((p) => p.message)).toEqual([expect.stringMatching(/"products"$/)]);
  });

  it('the list of secret drop options alone decides which are flagged, references, read, and redacted in logs', () => {
    expect(SECRET_DROP_OPTIONS).toEqual(['password', 'privateKey', 'passphrase'] satisfies SecretDropOption[]);
    const shape = sftpDropOptionsSchema.shape;
    expect(Object.keys(shape).filter((key) => secretOption.has(shape[key as keyof typeof shape]))).toEqual(SECRET_DROP_OPTIONS);
    expect(SECRET_OPTION_NAMES).toEqual(SECRET_DROP_OPTIONS);
    for (const key of ['password', 'private_key', 'privateKey', 'passphrase', 'token']) expect(REDACTED_PATHS).toContain(`*.${key}`);
    const inline = checkConfigText(VALID.replace('password: { file: secrets/sftp-password }', 'private_key: "-----BEGIN KEY-----"'), 'c.yaml');
    expect(inline.problems.map((p) => p.message.split(':')[0])).toEqual(['drops.partner.private_key']);
  });

  it('WISBRIDGE_METRICS_PORT and WISBRIDGE_LOG_LEVEL override the file; a bad value is a configuration error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wisbridge-config-'));
    const file = join(dir, 'wisbridge.yaml');
    await writeFile(file, VALID);
    expect((await loadConfig(file, {})).config.metrics).toBeUndefined();
    const loaded = await loadConfig(file, { WISBRIDGE_METRICS_PORT: '9555', WISBRIDGE_LOG_LEVEL: 'debug' });
    expect([loaded.config.metrics, loaded.config.log.level]).toEqual([{ host: '127.0.0.1', port: 9555 }, 'debug']);
    await writeFile(file, `${VALID}\nmetrics: { host: 0.0.0.0, port: 9464 }\n`);
    expect((await loadConfig(file, { WISBRIDGE_METRICS_PORT: '0' })).config.metrics).toEqual({ host: '0.0.0.0', port: 0 });
    for (const env of [{ WISBRIDGE_METRICS_PORT: 'http' }, { WISBRIDGE_METRICS_PORT: '70000' }, { WISBRIDGE_LOG_LEVEL: 'loud' }]) {
      const error = await loadConfig(file, env).catch((e: unknown) => e);
      expect(isWisbridgeError(error, 'CONFIG_INVALID'), JSON.stringify(env)).toBe(true);
      expect((error as Error).message).toMatch(new RegExp(`^${Object.keys(env)[0]}: `));
    }
  });

  it('reports YAML syntax errors with a position', () => {
    const { problems } = checkConfigText('services:\n  main: [unclosed\n', 'c.yaml');
    expect(problems[0]!.message).toMatch(/^YAML: /);
    expect(problems[0]!.line).toBeGreaterThan(0);
  });

  it('resolves relative paths against the config file and reads secrets from env and files, never inline', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wisbridge-config-'));
    await writeFile(join(dir, 'wisbridge.yaml'), VALID);
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'secrets')));
    await writeFile(join(dir, 'secrets', 'sftp-password'), 's3cret-pass\n');
    const loaded = await loadConfig(join(dir, 'wisbridge.yaml'));
    expect(loaded.journalFile).toBe(join(dir, 'state', 'journal.sqlite'));
    const local = await loaded.dropOptions('local');
    expect(local).toMatchObject({ type: 'local', root: join(dir, 'drop'), name: 'local' });
    const sftp = await loaded.dropOptions('partner');
    expect(sftp).toMatchObject({ type: 'sftp', password: 's3cret-pass', name: 'partner' });
    // The runtime opens them as they are (openDrop): they are what validating them again would give.
    expect(parseDropOptions(local)).toStrictEqual(local);
    expect(parseDropOptions(sftp)).toStrictEqual(sftp);

    delete process.env.WIS_TEST_TOKEN;
    const missing = await loaded.serviceToken('main').catch((e: unknown) => e);
    expect(isWisbridgeError(missing, 'CONFIG_INVALID')).toBe(true);
    expect((missing as Error).message).toContain('WIS_TEST_TOKEN');
    process.env.WIS_TEST_TOKEN = 'jwt-from-env';
    await expect(loaded.serviceToken('main')).resolves.toBe('jwt-from-env');
  });

  it('names a missing file by its full path and suggests --config', async () => {
    const error = await loadConfig('no-such-dir/wisbridge.yaml').catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toBe(
      `cannot read the configuration file ${resolve('no-such-dir/wisbridge.yaml')} (no such file; give the configuration with --config FILE (start from examples/wisbridge.yaml))`,
    );
  });
});
