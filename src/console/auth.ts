import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LoadedConfig } from '../config/load.js';
import type { ConsoleConfig } from '../config/schema.js';
import { OidcSignIn } from './oidc.js';
import type { Role } from './roles.js';

export interface Principal {
  /** Stable per login: the CSRF token is derived from it. */
  id: string;
  /** Who acted, as recorded in the journal: the person (identity provider, basic-auth user) or "token holder". */
  name: string;
  role: Role;
  /** How they signed in: the bearer token's holder names themselves on each form; the others are named by their sign-in. */
  via: 'oidc' | 'token' | 'basic';
}

/** A sign-in kept by the console (the session cookie holds its id, never a credential). */
export interface Session {
  id: string;
  name: string;
  role: Role;
  via: 'oidc' | 'token';
  signedInAt: number;
  expires: number;
}

export const SESSION_COOKIE = 'wisbridge_console';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
/** Compares digests, so neither the length nor the content of the secret leaks through timing. */
export const same = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

type Automation = { kind: 'bearer'; secret: string; role: Role } | { kind: 'basic'; username: string; secret: string; role: Role };

/**
 * Who may use the console, and with which role: people signed in with the company's identity provider (OpenID
 * Connect, `oidc`), and one credential for automation (`auth`: a bearer token, also taken on the login page, or a
 * basic-auth pair). Secrets are read once from their references and only compared, never shown or logged.
 */
export class ConsoleAuth {
  private readonly sessions = new Map<string, Session>();
  private readonly csrfKey = randomBytes(32);

  private constructor(
    private readonly automation: Automation | undefined,
    readonly oidc: OidcSignIn | undefined,
    private readonly sessionMs: number,
    private readonly now: () => number,
  ) {}

  static async fromConfig(loaded: LoadedConfig, config: ConsoleConfig, now: () => number = Date.now): Promise<ConsoleAuth> {
    const auth = config.auth;
    let automation: Automation | undefined;
    if (auth && 'bearer_token' in auth) automation = { kind: 'bearer', secret: await loaded.secret(auth.bearer_token, 'console bearer token'), role: auth.role };
    else if (auth) automation = { kind: 'basic', username: auth.username, secret: await loaded.secret(auth.password, 'console password'), role: auth.role };
    const oidc = config.oidc
      ? new OidcSignIn(config.oidc, config.oidc.client_secret && await loaded.secret(config.oidc.client_secret, 'console OpenID Connect client secret'), now)
      : undefined;
    return new ConsoleAuth(automation, oidc, config.session_hours * 3600_000, now);
  }

  /** The console takes the bearer token on its login page. */
  get takesToken(): boolean {
    return this.automation?.kind === 'bearer';
  }

  /** Only basic auth signs in: a browser is asked by its own prompt instead of being sent to the login page. */
  get basicOnly(): boolean {
    return this.automation?.kind === 'basic' && !this.oidc;
  }

  get takesBasic(): boolean {
    return this.automation?.kind === 'basic';
  }

  /** The signed-in operator of a request, or undefined. */
  check(req: IncomingMessage): Principal | undefined {
    const header = req.headers.authorization ?? '';
    const a = this.automation;
    if (a?.kind === 'basic' && header.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return undefined;
      const user = decoded.slice(0, colon);
      // Both compared always: the answer's timing does not say which one was wrong.
      const ok = same(user, a.username) && same(decoded.slice(colon + 1), a.secret);
      return ok ? { id: `basic:${user}`, name: user, role: a.role, via: 'basic' } : undefined;
    }
    if (a?.kind === 'bearer' && header.startsWith('Bearer ')) {
      return same(header.slice(7).trim(), a.secret) ? { id: 'bearer', name: 'token holder', role: a.role, via: 'token' } : undefined;
    }
    if (header !== '') return undefined;
    const id = cookieOf(req, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (session === undefined || session.expires < this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return { id: `session:${id}`, name: session.name, role: session.role, via: session.via };
  }

  /** The login page's token: a session id for the right one (the cookie's value), else undefined. */
  login(token: string): string | undefined {
    const a = this.automation;
    if (a?.kind !== 'bearer' || !same(token.trim(), a.secret)) return undefined;
    return this.open('token holder', a.role, 'token');
  }

  /** A session for a person the identity provider signed in: its id, the cookie's value. */
  open(name: string, role: Role, via: Session['via']): string {
    const id = randomBytes(24).toString('base64url');
    const now = this.now();
    this.sessions.set(id, { id, name, role, via, signedInAt: now, expires: now + this.sessionMs });
    return id;
  }

  logout(req: IncomingMessage): void {
    const session = cookieOf(req, SESSION_COOKIE);
    if (session !== undefined) this.sessions.delete(session);
  }

  /** The sessions signed in now, newest first (the admin's sign-ins page). */
  listSessions(): Session[] {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expires < now) this.sessions.delete(id);
    return [...this.sessions.values()].sort((a, b) => b.signedInAt - a.signedInAt);
  }

  /** Ends a session by a short reference to its id (never the id itself, which is the cookie); true when one ended. */
  endSession(ref: string): Session | undefined {
    const session = this.listSessions().find((s) => sessionRef(s) === ref);
    if (session) this.sessions.delete(session.id);
    return session;
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

/** A session as pages and the actions log name it: a digest of its id, which cannot be turned back into the cookie. */
export const sessionRef = (s: Pick<Session, 'id'>): string => digest(s.id).toString('base64url').slice(0, 12);
