import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDropOptions } from '../drops/create.js';
import { CheckCache } from '../util/check-cache.js';
import { checkConfigText } from './check-text.js';
import { bindConfig, checkConfig } from './load.js';
import type { Config } from './schema.js';
import { VALID } from './test-support.js';

// Every section the checked configuration keeps: drops of both kinds, one with OpenPGP, jobs with schedules and
// expected files, exports, the console, alerts, metrics, and a camelCase key (a warning).
const TEXT = VALID
  .replace('    token: { env: WIS_TEST_TOKEN }\n', '    token: { env: WIS_TEST_TOKEN }\n    requests_in_flight: 4\n')
  .replace('    root: ./drop\n', '    root: ./drop\n    settleMs: 500\n    pgp: { private_key: { file: keys/bridge.asc }, partner_key: { file: keys/partner.asc }, require_signature: true }\n')
  + 'console: { auth: { bearer_token: { env: CONSOLE_TOKEN } } }\nalerts: { webhook: { url: { env: HOOK_URL } } }\nmetrics: { port: 9464 }\n';

let dir: string;
let file: string;
const cache = (checker = 'build-1') => CheckCache.open<Config>('config', resolve(file), checker);
const cacheFile = () => join(dir, 'cache', 'wisbridge', readdirSync(join(dir, 'cache', 'wisbridge')).find((f) => f.startsWith('config-'))!);
const saved = process.env.XDG_CACHE_HOME;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wb-config-cache-'));
  file = join(dir, 'wisbridge.yaml');
  process.env.XDG_CACHE_HOME = join(dir, 'cache');
});

afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('the cache of checked configurations', () => {
  it('gives back what a full check gives, without parsing the text again', async () => {
    const full = checkConfigText(TEXT, file);
    expect(full.problems).toEqual([]);
    expect(full.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^drops\.local\.settleMs: deprecated spelling/)]);
    const first = await checkConfig(TEXT, file, cache());
    const cached = await checkConfig(TEXT, file, cache());
    // Kept as JSON: nothing of the checked configuration is lost or changed on the way (undefined keys included).
    expect(cached.config).toStrictEqual(full.config);
    expect(cached.warnings).toStrictEqual(full.warnings);
    expect(first.config).toStrictEqual(full.config);
    // It came from the cache: an entry changed by hand shows through.
    const kept = JSON.parse(readFileSync(cacheFile(), 'utf8')) as { entries: Record<string, { data: Config }> };
    kept.entries[file]!.data.services.main!.requests_in_flight = 7;
    writeFileSync(cacheFile(), JSON.stringify(kept));
    expect((await checkConfig(TEXT, file, cache())).config!.services.main!.requests_in_flight).toBe(7);
    // Only under the checker that wrote it: another build checks the text again.
    expect((await checkConfig(TEXT, file, cache('build-2'))).config!.services.main!.requests_in_flight).toBe(4);
  });

  it('positions a later problem in the text of a cached configuration, its YAML parsed only then', async () => {
    await checkConfig(TEXT, file, cache());
    const cached = await checkConfig(TEXT, file, cache());
    const lines = TEXT.split('\n');
    const line = lines.findIndex((l) => l.includes('mapping: customer-shipments-export'));
    expect((await cached.document())!.positionOf(['exports', 0, 'mapping'])).toEqual({ line: line + 1, col: lines[line]!.indexOf('customer-shipments-export') + 1 });
  });

  it('checks a changed text again and keeps no text that fails', async () => {
    await checkConfig(TEXT, file, cache());
    const changed = await checkConfig(TEXT.replace('requests_in_flight: 4', 'requests_in_flight: 5'), file, cache());
    expect(changed.config!.services.main!.requests_in_flight).toBe(5);
    const bad = TEXT.replace('requests_in_flight: 4', 'requests_in_flight: many');
    for (let i = 0; i < 2; i++) {
      const refused = await checkConfig(bad, file, cache());
      expect(refused.config).toBeUndefined();
      const line = bad.split('\n').findIndex((l) => l.includes('requests_in_flight: many')) + 1;
      expect(refused.problems.map((p) => `${p.line}: ${p.message.split(':')[0]}`)).toEqual([`${line}: services.main.requests_in_flight`]);
    }
  });

  it('keeps no configuration with a credential written inline in a URL: the cache holds no secret', async () => {
    const inline = [
      TEXT.replace('alerts: { webhook: { url: { env: HOOK_URL } } }', 'alerts: { webhook: { url: "https://hooks.example.com/x?token=s3cret-hook" } }'),
      TEXT.replace('http://127.0.0.1:8080', 'http://wms:s3cret-pass@127.0.0.1:8080'),
    ];
    for (const text of inline) {
      expect((await checkConfig(text, file, cache())).config).toBeDefined();
      const folder = join(dir, 'cache', 'wisbridge');
      expect(existsSync(folder) ? readdirSync(folder).filter((f) => f.startsWith('config-')) : []).toEqual([]);
    }
    await checkConfig(TEXT, file, cache());
    expect(readFileSync(cacheFile(), 'utf8')).not.toMatch(/s3cret/);
  });

  it('keeps drop options the runtime opens as they are: validating them again changes nothing', async () => {
    const { config } = await checkConfig(TEXT, file, cache());
    for (const [name, content] of [['keys/bridge.asc', 'BRIDGE KEY'], ['keys/partner.asc', 'PARTNER KEY'], ['secrets/sftp-password', 'pass']]) {
      await import('node:fs/promises').then(async (fs) => {
        await fs.mkdir(join(dir, name, '..'), { recursive: true });
        await fs.writeFile(join(dir, name), content);
      });
    }
    const loaded = bindConfig(config!, file);
    for (const name of ['local', 'partner']) {
      const options = await loaded.dropOptions(name);
      expect(parseDropOptions(options)).toStrictEqual(options);
    }
  });
});
