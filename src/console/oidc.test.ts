import { describe, expect, it } from 'vitest';
import { claimValues } from './oidc.js';
import { allows, highestRole } from './roles.js';

describe('roles from claims', () => {
  it('reads a claim as a text or a list of texts, by a dotted path, in the claims\' own keys only', () => {
    const claims = { groups: ['ops', 7, 'staff'], role: 'viewers', realm_access: { roles: ['it-admins'] }, empty: null };
    expect(claimValues(claims, 'groups')).toEqual(['ops', 'staff']);
    expect(claimValues(claims, 'role')).toEqual(['viewers']);
    expect(claimValues(claims, 'realm_access.roles')).toEqual(['it-admins']);
    for (const path of ['missing', 'empty.roles', '__proto__', 'constructor', 'groups.length', 'role.length']) expect(claimValues(claims, path), path).toEqual([]);
  });

  it('gives a person the highest of their roles; each role may do what the ones below it may', () => {
    expect(highestRole(['viewer', 'admin', 'operator'])).toBe('admin');
    expect(highestRole(['viewer'])).toBe('viewer');
    expect(highestRole([])).toBeUndefined();
    expect([allows('viewer', 'operator'), allows('operator', 'operator'), allows('admin', 'operator'), allows('operator', 'admin')]).toEqual([false, true, true, false]);
  });
});
