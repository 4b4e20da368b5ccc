import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfigFile } from './check.js';
import { checkConfigText } from './check-text.js';

const BASE = `
services:
  main: { url: http://127.0.0.1:8080, token: { env: WIS_TEST_TOKEN } }
drops:
  nwl: { type: local, root: ./drop }
`;

const OIDC = {
  issuer: 'https://login.example.com/realms/ops',
  client_id: 'wisbridge',
  client_secret: '{ env: OIDC_SECRET }',
  redirect_url: 'https://bridge.example.com/console/oidc/callback',
  roles: '{ ops: operator, it-admins: admin }',
};

const consoleWith = (oidc: Record<string, string | undefined>, extra = '') => `${BASE}console:
${extra}  oidc:
${Object.entries(oidc).filter(([, v]) => v !== undefined).map(([k, v]) => `    ${k}: ${v}`).join('\n')}
`;

/** Every problem as `line:col: message`. */
const problemsOf = (text: string) => checkConfigText(text, 'wisbridge.yaml').problems.map((p) => `${p.line}:${p.col}: ${p.message}`);

describe('console sign-in settings', () => {
  it('reads an oidc section with its defaults; the automation credential keeps the operator role unless told', () => {
    const { config, problems } = checkConfigText(consoleWith(OIDC, '  auth: { bearer_token: { env: T } }\n'), 'wisbridge.yaml');
    expect(problems).toEqual([]);
    expect(config!.console!.oidc).toMatchObject({
      scopes: ['openid', 'profile', 'email'], roles_claim: 'roles', roles: { ops: 'operator', 'it-admins': 'admin' }, provider_name: 'your company account',
    });
    expect(config!.console!.oidc!.default_role).toBeUndefined();
    expect(config!.console!.auth).toMatchObject({ role: 'operator' });
    const loopback = consoleWith({ ...OIDC, issuer: 'http://127.0.0.2:8080', redirect_url: 'http://localhost:9464/console/oidc/callback' });
    expect(problemsOf(loopback)).toEqual([]);
  });

  it('names the key of each mistake, all at once', () => {
    const problems = problemsOf(consoleWith({
      issuer: 'http://login.example.com', client_id: 'wisbridge', client_secret: 'inline-secret', redirect_url: 'https://bridge.example.com/callback',
      scopes: '[profile, "a b"]', roles: '{ ops: boss }', default_role: 'root',
    }));
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/^\d+:\d+: console\.oidc\.issuer: the issuer must use https \(plain http only for a loopback address/),
      expect.stringMatching(/console\.oidc\.client_secret: a secret goes by reference, never inline/),
      expect.stringMatching(/console\.oidc\.redirect_url: redirect_url must end in \/console\/oidc\/callback/),
      expect.stringMatching(/console\.oidc\.scopes\.1: a scope is one word/),
      expect.stringMatching(/console\.oidc\.scopes: scopes must include openid/),
      expect.stringMatching(/console\.oidc\.roles\.ops: expected a role: viewer, operator or admin/),
      expect.stringMatching(/console\.oidc\.default_role: expected a role/),
    ]));
    expect(problems.join('\n')).not.toContain('inline-secret');
  });

  it('needs a way to sign in, and a role map', () => {
    expect(problemsOf(`${BASE}console:\n  session_hours: 8\n`)).toEqual([expect.stringMatching(/console\.auth: say how operators sign in: `oidc`/)]);
    expect(problemsOf(consoleWith({ ...OIDC, roles: '{}' }))).toEqual([expect.stringMatching(/console\.oidc\.roles: map at least one claim value to a role/)]);
    expect(problemsOf(consoleWith({ ...OIDC, client_id: undefined }))).toEqual([expect.stringMatching(/console\.oidc\.client_id/)]);
    expect(problemsOf(`${BASE}console:\n  auth: { bearer_token: { env: T }, role: boss }\n`)).toEqual([expect.stringMatching(/console\.auth\.role: expected a role/)]);
  });

  it('config check reads the client secret: a missing one is named by its key and variable, never shown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wb-console-'));
    const file = join(dir, 'wisbridge.yaml');
    await writeFile(file, `journal: ${join(dir, 'journal.sqlite')}\nmappings: ${resolve('mappings')}\n${consoleWith({ ...OIDC, client_secret: '{ env: WB_TEST_NO_SUCH_OIDC_SECRET }' })}`);
    process.env.WIS_TEST_TOKEN = 'service-token';
    const problems = (await checkConfigFile(file)).map((p) => p.message);
    expect(problems).toContain('console.oidc.client_secret: environment variable WB_TEST_NO_SUCH_OIDC_SECRET (the console OpenID Connect client secret) is not set or empty');
  });
});
