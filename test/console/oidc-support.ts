import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load.js';
import { AlertLog, startConsole } from '../../src/console/index.js';
import type { Journal } from '../../src/journal/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { standaloneSource } from '../../src/service/standalone-console.js';
import { memoryLogger, stockConfig, tempConfig } from '../service/support.js';
import { CLIENT_SECRET, oidcSection, startOidcProvider } from '../support/oidc-provider.js';
import { seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';

/**
 * A console (wisbridge console, over a seeded SQLite journal with two open alerts) signing people in with a real
 * OpenID Provider on loopback; `auth`: the automation credential beside it. The console's port is taken before its
 * configuration is written, since the provider must know its redirect URL.
 */
export async function oidcConsole(options: { auth?: string; providerHost?: string; oidcExtra?: string } = {}) {
  const provider = await startOidcProvider(options.providerHost);
  const console: { handler?: (req: IncomingMessage, res: ServerResponse) => boolean } = {};
  const server = createServer((req, res) => {
    if (!console.handler?.(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirect = `${url}/console/oidc/callback`;
  provider.register(redirect);
  const auth = options.auth === undefined ? '' : `  ${options.auth}\n`;
  const env = await tempConfig(`${stockConfig('http://127.0.0.1:9')}console:\n${auth}${oidcSection(provider.issuer, redirect, options.oidcExtra)}`, { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
  writeFileSync(join(env.dir, 'oidc-client-secret'), CLIENT_SECRET + '\n');
  const log = memoryLogger();
  const runtime = createRuntime(await loadConfig(env.file), { logger: log.logger });
  const journal: Journal = await runtime.journal();
  await seedTwoFailures(journal);
  await journal.console.raiseAlert({ kind: 'file-failed', subject: 'file:1', job: 'stock', fileId: 1, message: 'file KORR_a.csv: 1 document(s) failed' });
  await journal.console.raiseAlert({ kind: 'rows-uncertain', subject: 'file:2', job: 'stock', fileId: 2, message: 'file KORR_b.csv: 1 document(s) with an unknown outcome' });
  console.handler = await startConsole(runtime.loaded, standaloneSource(runtime, new AlertLog()));
  return {
    url, issuer: provider.issuer, journal, log: log.records,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await provider.close();
      await runtime.close();
      env.cleanup();
    },
  };
}

interface Answer { status: number; text: string; headers: Headers; url: string }

/**
 * A browser as plain HTTP: a cookie jar per host and port, redirects followed by hand (so each answer can be seen),
 * the provider's login form filled in with `account` and its consent form accepted.
 */
export class HttpBrowser {
  readonly jar = new Map<string, Map<string, string>>();

  cookies(url: string): Map<string, string> {
    const host = new URL(url).host;
    if (!this.jar.has(host)) this.jar.set(host, new Map());
    return this.jar.get(host)!;
  }

  async request(url: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}): Promise<Answer> {
    const jar = this.cookies(url);
    const headers: Record<string, string> = { accept: 'text/html' };
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.origin) headers.origin = init.origin;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.split('=');
      const expired = attributes.some((a) => /^\s*max-age=0$/i.test(a)) || value.join('=') === '';
      if (expired) jar.delete(name.trim());
      else jar.set(name.trim(), value.join('='));
    }
    return { status: res.status, text: await res.text(), headers: res.headers, url };
  }

  /** Follows redirects from `url`, signing in at the provider as `account`, until an answer of the console that is not a redirect. */
  async signIn(url: string, account: string, consoleBase: string, tamper?: (authorizationUrl: URL) => void): Promise<Answer> {
    let answer = await this.request(url);
    for (let step = 0; step < 20; step++) {
      const location = answer.headers.get('location');
      if (answer.status >= 300 && answer.status < 400 && location) {
        const next = new URL(location, answer.url);
        if (tamper && next.pathname === '/auth' && next.searchParams.has('nonce')) {
          tamper(next);
          tamper = undefined;
        }
        answer = await this.request(next.href);
        continue;
      }
      if (answer.url.startsWith(consoleBase)) return answer;
      const action = /<form[^>]*action="([^"]+)"/.exec(answer.text)?.[1];
      if (!action) throw new Error(`the provider answered ${answer.status} without a form: ${answer.text.slice(0, 300)}`);
      const form: Record<string, string> = {};
      for (const m of answer.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form[m[1]] = m[2];
      if (answer.text.includes('name="login"')) Object.assign(form, { login: account, password: 'any' });
      answer = await this.request(new URL(action.replace(/&amp;/g, '&'), answer.url).href, { form });
    }
    throw new Error('too many steps signing in');
  }
}
