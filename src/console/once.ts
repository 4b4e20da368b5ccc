import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a confirm page's form may be sent (its token is refused afterwards: open the page again). */
const TOKEN_MS = 12 * 3600_000;

export type TokenCheck =
  | { kind: 'fresh'; nonce: string }
  /** Not made by this console for this login and this action (a forged or stale form: CSRF). */
  | { kind: 'invalid' }
  | { kind: 'expired' }
  /** Sent before: the action it ran (its audit entry), or null while it is still under way. */
  | { kind: 'used'; actionId: number | null; at: string };

/**
 * One-time action tokens: every confirm page's form carries one, signed for the login and the action's path (so it
 * is also the CSRF token), and it runs its action once. A reload or a replay of the same POST finds it used and gets
 * the first run's result instead of a second run. Used tokens are kept until they would have expired anyway.
 */
export class ActionTokens {
  readonly #key = randomBytes(32);
  readonly #used = new Map<string, { actionId: number | null; at: number; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(principalId: string, path: string): string {
    const expires = this.now() + TOKEN_MS;
    const nonce = randomBytes(16).toString('base64url');
    return `${expires}.${nonce}.${this.#sign(principalId, path, expires, nonce)}`;
  }

  /** Checks a posted token; a fresh one is marked used at once (a second POST meanwhile finds it under way). */
  take(principalId: string, path: string, token: string | undefined): TokenCheck {
    const [expiresText, nonce, sig, ...rest] = (token ?? '').split('.');
    if (rest.length > 0 || !/^\d+$/.test(expiresText ?? '') || !nonce || !sig) return { kind: 'invalid' };
    const expires = Number(expiresText);
    const expected = Buffer.from(this.#sign(principalId, path, expires, nonce));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { kind: 'invalid' };
    const now = this.now();
    for (const [key, entry] of this.#used) if (entry.expires < now) this.#used.delete(key);
    const used = this.#used.get(nonce);
    if (used) return { kind: 'used', actionId: used.actionId, at: new Date(used.at).toISOString() };
    if (expires < now) return { kind: 'expired' };
    this.#used.set(nonce, { actionId: null, at: now, expires });
    return { kind: 'fresh', nonce };
  }

  /** The action of a taken token ran and was recorded under this audit id. */
  ran(nonce: string, actionId: number): void {
    const entry = this.#used.get(nonce);
    if (entry) entry.actionId = actionId;
  }

  /** The action did not run (the form was incomplete, the bridge is stopping): the form may be sent again. */
  release(nonce: string): void {
    this.#used.delete(nonce);
  }

  #sign(principalId: string, path: string, expires: number, nonce: string): string {
    return createHmac('sha256', this.#key).update(`${principalId}\n${path}\n${expires}\n${nonce}`).digest('base64url');
  }
}
