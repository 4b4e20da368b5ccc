import { describe, expect, it } from 'vitest';
import { signToken, verifyToken } from './jwt.js';

const SECRET = 'unit-test-secret';

describe('HS256 tokens', () => {
  it('round-trips the warehouse scope', () => {
    const r = verifyToken(SECRET, signToken(SECRET, [1, 2], 60));
    expect(r.ok && r.claims.warehouses).toEqual([1, 2]);
  });
  it('refuses another secret, a changed payload, expiry and garbage, without echoing the token', () => {
    const token = signToken(SECRET, [1], 60);
    expect(verifyToken('other-secret', token)).toEqual({ ok: false, reason: 'bad token signature' });
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ warehouses: [2], exp: 9e9 })).toString('base64url')}.${s}`;
    expect(verifyToken(SECRET, forged).ok).toBe(false);
    expect(verifyToken(SECRET, signToken(SECRET, [1], 60, Date.now() - 120_000))).toEqual({ ok: false, reason: 'token expired' });
    for (const junk of ['', 'a.b', 'a.b.c.d', '!!.??.**', `${h}.e30.${s}`]) {
      const r = verifyToken(SECRET, junk);
      expect(r.ok).toBe(false);
      if (!r.ok && junk.length > 3) expect(r.reason).not.toContain(junk);
    }
  });
});
