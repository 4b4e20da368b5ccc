import type { ConsoleRole } from '../config/schema.js';

// What each role may do in the console. The server checks it on every action and confirm page; the pages leave out
// the links and buttons a role may not use, so a viewer never meets a form that would be refused.

export type Role = ConsoleRole;

const RANK: Readonly<Record<Role, number>> = { viewer: 0, operator: 1, admin: 2 };

/** The role a route needs unless it says otherwise: every action (a POST) needs an operator. */
export const ACTION_ROLE: Role = 'operator';

export const ROLE_MEANING: Readonly<Record<Role, string>> = {
  viewer: 'reads every page and downloads result files',
  operator: 'also acts: re-drive, resolve, re-process, acknowledge alerts',
  admin: 'also sees who is signed in and ends sessions',
};

export const allows = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

/** The highest of several roles (a person in several mapped groups), or undefined for none. */
export function highestRole(roles: readonly Role[]): Role | undefined {
  return roles.reduce<Role | undefined>((best, r) => (best === undefined || RANK[r] > RANK[best] ? r : best), undefined);
}
