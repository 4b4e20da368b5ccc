import { createHmac, timingSafeEqual } from 'node:crypto';

/** Default secret for local use only (documented in docs/emulator.md). */
export const DEFAULT_SECRET = 'wisbridge-emulator-dev-secret';

export interface TokenClaims {
  warehouses: number[];
  exp: number;
  iat: number;
  sub?: string;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function signToken(secret: string, warehouses: number[], expiresInSeconds = 3600, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ sub: '3pl-integration', warehouses, iat, exp: iat + expiresInSeconds }));
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

export type VerifyResult = { ok: true; claims: TokenClaims } | { ok: false; reason: string };

/** Checks an HS256 JWT. The reason never contains the token or the secret. */
export function verifyToken(secret: string, token: string, now = Date.now()): VerifyResult {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return { ok: false, reason: 'malformed token' };
  const [h, p, s] = parts as [string, string, string];
  let header: unknown;
  let payload: unknown;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed token' };
  }
  if (typeof header !== 'object' || header === null || (header as { alg?: unknown }).alg !== 'HS256') return { ok: false, reason: 'unsupported token algorithm' };
  const expected = createHmac('sha256', secret).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad token signature' };
  const claims = payload as Partial<TokenClaims>;
  if (typeof claims !== 'object' || claims === null || !Array.isArray(claims.warehouses) || claims.warehouses.length === 0
    || !claims.warehouses.every((w) => Number.isInteger(w) && w > 0) || typeof claims.exp !== 'number') {
    return { ok: false, reason: 'token carries no warehouse scope or expiry' };
  }
  if (claims.exp * 1000 <= now) return { ok: false, reason: 'token expired' };
  return { ok: true, claims: claims as TokenClaims };
}
