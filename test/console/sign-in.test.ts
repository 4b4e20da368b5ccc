import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { memoryLogger, stockConfig, tempConfig, useCleanups } from '../service/support.js';
import { CONSOLE_TOKEN, consoleClient, consoleConfig } from './support.js';

const cleanups = useCleanups();
const METRICS_TOKEN = 'metrics-secret-0815-xyz';

/** A bridge with the console on (no jobs run: no service is called), its log in memory. */
async function bridge(extra = '', yaml = consoleConfig('http://127.0.0.1:9')) {
  const env = await tempConfig(yaml + extra, { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
  writeFileSync(join(env.dir, 'metrics-token'), METRICS_TOKEN + '\n');
  const log = memoryLogger();
  const service = new BridgeService(await loadConfig(env.file), { runners: flowRunners, logger: log.logger });
  cleanups.push(env.cleanup, () => service.stop('test'));
  await service.start();
  return { url: service.url!, service, log: log.records };
}

const failures = async (url: string, auth?: string) => {
  const text = await (await fetch(`${url}/metrics`, { headers: auth ? { authorization: auth } : {} })).text();
  return Object.fromEntries([...text.matchAll(/^wisbridge_sign_in_failures_total\{area="(\w+)",result="(\w+)"(?:,instance="[^"]*")?\} (\d+)$/gm)].map((m) => [`${m[1]}/${m[2]}`, Number(m[3])]));
};

describe('console: failed sign-ins', () => {
  it('50 wrong tokens in a row: the first ten are refused (401), the rest throttled (429, even the right token), logged without the secret, counted', async () => {
    const b = await bridge();
    const anonymous = consoleClient(b.url, null);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await anonymous.post('/console/login', { token: `guess-${i}` })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(40).fill(429));
    // Throttled: the right token is not even looked at, nor a bearer header, until the bucket refills.
    const right = await anonymous.post('/console/login', { token: CONSOLE_TOKEN });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.text).toContain('too many failed sign-ins');
    expect((await consoleClient(b.url, 'another-guess').get('/console')).status).toBe(429);
    // A browser without credentials is still sent to the login page (not an attempt).
    expect((await anonymous.request('/console', { headers: { accept: 'text/html' } })).status).toBe(303);

    const refused = b.log.filter((l) => l.msg === 'sign-in refused: wrong credentials');
    expect(refused).toHaveLength(10);
    expect(refused[0]).toMatchObject({ area: 'console', via: 'login form', client: '127.0.0.1', attemptsLeft: 9 });
    // One line when the throttle starts, not one per attempt.
    expect(b.log.filter((l) => l.msg === 'sign-in throttled: too many failed attempts from this client')).toHaveLength(1);
    const text = JSON.stringify(b.log);
    expect(text).not.toContain('guess-');
    expect(text).not.toContain(CONSOLE_TOKEN);
    expect(await failures(b.url)).toEqual({ 'console/refused': 10, 'console/throttled': 42 });
  });

  it('wrong bearer headers and wrong basic-auth passwords count the same way', async () => {
    process.env.WISBRIDGE_CONSOLE_PASSWORD = 'pw-very-secret-99';
    const b = await bridge('', consoleConfig('http://127.0.0.1:9', 'auth: { username: ops, password: { env: WISBRIDGE_CONSOLE_PASSWORD } }'));
    const basic = (pw: string) => ({ authorization: `Basic ${Buffer.from(`ops:${pw}`).toString('base64')}` });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await fetch(`${b.url}/console`, { headers: basic(`nope-${i}`) })).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    expect(b.log.find((l) => l.msg === 'sign-in refused: wrong credentials')).toMatchObject({ via: 'basic auth', user: 'ops' });
    expect(JSON.stringify(b.log)).not.toContain('nope-');
  });
});

describe('/metrics and /healthz with their own credentials', () => {
  const metricsAuth = (healthz: string) => `metrics: { host: 127.0.0.1, port: 0, auth: { bearer_token: { file: metrics-token } }${healthz} }\n`;
  const withoutMetrics = (yaml: string) => yaml.replace('metrics: { host: 127.0.0.1, port: 0 }\n', '');

  it('metrics.auth: both need the metrics token (not the console\'s); wrong ones are throttled like the console\'s', async () => {
    const b = await bridge('', withoutMetrics(consoleConfig('http://127.0.0.1:9')) + metricsAuth(''));
    expect((await fetch(`${b.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${b.url}/healthz`)).status).toBe(401);
    expect((await fetch(`${b.url}/metrics`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } })).status).toBe(401);
    const ok = await fetch(`${b.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('wisbridge_files_total');
    expect((await fetch(`${b.url}/healthz`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    // The console keeps its own token.
    expect((await consoleClient(b.url).get('/console')).status).toBe(200);
    expect((await consoleClient(b.url, METRICS_TOKEN).get('/console')).status).toBe(401);
    for (let i = 0; i < 10; i++) await fetch(`${b.url}/metrics`, { headers: { authorization: `Bearer wrong-${i}` } });
    expect((await fetch(`${b.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(429);
    expect(JSON.stringify(b.log)).not.toContain('wrong-');
    expect(b.log.filter((l) => l.area === 'metrics' && l.msg === 'sign-in refused: wrong credentials')).toHaveLength(10); // the console's token, then nine: the tenth was throttled
  });

  it('public_healthz: the load balancer reaches /healthz without credentials, /metrics stays protected', async () => {
    const b = await bridge('', withoutMetrics(stockConfig('http://127.0.0.1:9')) + metricsAuth(', public_healthz: true'));
    expect((await fetch(`${b.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${b.url}/metrics`)).status).toBe(401);
  });
});

describe('start-up', () => {
  it('says where the console is in the first log lines of run', async () => {
    const b = await bridge();
    const first = b.log.slice(0, 3);
    const line = first.find((l) => l.console !== undefined);
    expect(line?.console).toBe(`${b.url}/console`);
    expect(line?.msg).toContain(`console on ${b.url}/console`);
  });
});
