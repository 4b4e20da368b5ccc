import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { dirname, isAbsolute, resolve } from 'node:path';
import { readSecret } from '../secret.js';
import type { LoadedConfig } from '../config/load.js';
import type { ConsoleConfig, SecretRef } from '../config/schema.js';

export interface Principal {
  /** Stable per login: the CSRF token is derived from it. */
  id: string;
  /** Who acted, as recorded in the journal (basic-auth user, or "token holder" for the bearer token). */
  name: string;
}

export const SESSION_COOKIE = 'wisbridge_console';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
/** Compares digests, so neither the length nor the content of the secret leaks through timing. */
export const same = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * Who may use the console: the configured bearer token (header, or a login that sets a session cookie) or basic-auth
 * credentials. Secrets are read once from their references and only compared, never shown or logged.
 */
export class ConsoleAuth {
  private readonly sessions = new Map<string, number>();
  private readonly csrfKey = randomBytes(32);

  private constructor(
    readonly kind: 'bearer' | 'basic',
    private readonly secret: string,
    private readonly username: string | undefined,
    private readonly sessionMs: number,
    private readonly now: () => number,
  ) {}

  static async fromConfig(loaded: LoadedConfig, config: ConsoleConfig, now: () => number = Date.now): Promise<ConsoleAuth> {
    const base = dirname(resolve(loaded.file));
    const source = (ref: SecretRef) => ('env' in ref ? { env: ref.env } : { file: isAbsolute(ref.file) ? ref.file : resolve(base, ref.file) });
    const sessionMs = config.session_hours * 3600_000;
    if ('bearer_token' in config.auth) {
      return new ConsoleAuth('bearer', await readSecret(source(config.auth.bearer_token), 'console bearer token'), undefined, sessionMs, now);
    }
    const password = await readSecret(source(config.auth.password), 'console password');
    return new ConsoleAuth('basic', password, config.auth.username, sessionMs, now);
  }

  /** The signed-in operator of a request, or undefined. */
  check(req: IncomingMessage): Principal | undefined {
    const header = req.headers.authorization ?? '';
    if (this.kind === 'basic') {
      if (!header.startsWith('Basic ')) return undefined;
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return undefined;
      const user = decoded.slice(0, colon);
      // Both compared always: the answer's timing does not say which one was wrong.
      const ok = same(user, this.username!) && same(decoded.slice(colon + 1), this.secret);
      return ok ? { id: `basic:${user}`, name: user } : undefined;
    }
    if (header.startsWith('Bearer ') && same(header.slice(7).trim(), this.secret)) return { id: 'bearer', name: 'token holder' };
    const session = cookieOf(req, SESSION_COOKIE);
    if (session === undefined) return undefined;
    const expires = this.sessions.get(session);
    if (expires === undefined || expires < this.now()) {
      this.sessions.delete(session);
      return undefined;
    }
    return { id: `session:${session}`, name: 'token holder' };
  }

  /** Bearer mode: a session id for the right token (the cookie's value), else undefined. */
  login(token: string): string | undefined {
    if (this.kind !== 'bearer' || !same(token.trim(), this.secret)) return undefined;
    const id = randomBytes(24).toString('base64url');
    this.sessions.set(id, this.now() + this.sessionMs);
    return id;
  }

  logout(req: IncomingMessage): void {
    const session = cookieOf(req, SESSION_COOKIE);
    if (session !== undefined) this.sessions.delete(session);
  }

  get sessionSeconds(): number {
    return Math.round(this.sessionMs / 1000);
  }

  /** The token every action form carries: tied to the login, unknown to other sites (they cannot read our pages). */
  csrfToken(principal: Principal): string {
    return createHmac('sha256', this.csrfKey).update(principal.id).digest('base64url');
  }

  checkCsrf(principal: Principal, token: string | undefined): boolean {
    return token !== undefined && same(token, this.csrfToken(principal));
  }
}
