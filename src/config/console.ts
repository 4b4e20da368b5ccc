import { z } from 'zod';
import { isTimeZone } from '../util/time-zone.js';
import { secretRefSchema } from './secret-ref.js';

// The `console:` section: how operators sign in (a company identity provider over OpenID Connect, and/or one bearer
// token or basic-auth pair for automation) and what each may do (docs/console.md, "Sign-in and roles").

/** What a signed-in person may do, least first: viewer reads, operator acts, admin also manages sign-ins. */
export const CONSOLE_ROLES = ['viewer', 'operator', 'admin'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** The path the identity provider sends the browser back to; the console answers it and nothing else. */
export const OIDC_CALLBACK_PATH = '/console/oidc/callback';

const roleSchema = z.enum(CONSOLE_ROLES, { error: 'expected a role: viewer, operator or admin' });
const automationRole = roleSchema.default('operator')
  .describe('what this credential may do: `viewer` (read), `operator` (act: re-drive, resolve, re-process, acknowledge), `admin` (also the sign-ins page and ending sessions); operator when absent');

/** Plain http only where nothing crosses a network: a provider or a console on this machine (tests, a local proxy). */
const isLoopbackHttp = (url: URL) => url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(url.hostname));
const httpsUrl = (what: string) => z.url({ protocol: /^https?$/, error: `${what} must be an absolute https URL` })
  .refine((text) => new URL(text).protocol === 'https:' || isLoopbackHttp(new URL(text)), { error: `${what} must use https (plain http only for a loopback address: 127.x.x.x, localhost, [::1])` });

/** A scope token of RFC 6749 §3.3: printable ASCII without space, `"` or `\`. */
const scopeSchema = z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, { error: 'a scope is one word of printable ASCII (no spaces, quotes or backslashes)' });

export const oidcSchema = z
  .strictObject({
    issuer: httpsUrl('the issuer')
      .describe('the identity provider\'s issuer URL: its `/.well-known/openid-configuration` is read at the first sign-in (e.g. https://login.example.com/realms/ops)'),
    client_id: z.string().min(1).describe('the console\'s client id, registered at the provider'),
    client_secret: secretRefSchema.optional()
      .describe('the client\'s secret, by reference, sent with HTTP basic authentication to the token endpoint; absent: a public client (PKCE alone)'),
    redirect_url: httpsUrl('redirect_url')
      .refine((text) => new URL(text).pathname === OIDC_CALLBACK_PATH, { error: `redirect_url must end in ${OIDC_CALLBACK_PATH} (the address the console answers the provider on)` })
      .describe(`where the provider sends the browser back, as registered there: the console's own address followed by \`${OIDC_CALLBACK_PATH}\` (behind a proxy, the proxy's https address)`),
    scopes: z.array(scopeSchema).default(['openid', 'profile', 'email'])
      .refine((scopes) => scopes.includes('openid'), { error: 'scopes must include openid' })
      .describe('scopes asked for; `openid` is required, add the one that releases the roles claim if the provider needs it (e.g. `groups`)'),
    roles_claim: z.string().min(1).default('roles')
      .describe('the claim (of the ID token or userinfo) carrying the person\'s groups or roles: a text or a list of texts; a dotted path reaches into an object (`realm_access.roles`)'),
    roles: z.record(z.string().min(1), roleSchema)
      .refine((roles) => Object.keys(roles).length > 0, { error: 'map at least one claim value to a role, e.g. `{ wisbridge-operators: operator }`' })
      .describe('claim value → console role (viewer, operator, admin); a person with several values gets the highest of their roles'),
    default_role: roleSchema.optional()
      .describe('the role of a person none of whose claim values is mapped; absent: such a person is refused (403)'),
    provider_name: z.string().min(1).max(60).default('your company account').describe('shown on the sign-in button: "Sign in with …"'),
  })
  .describe('Sign-in with the company\'s identity provider (OpenID Connect, authorization code flow with PKCE); the console\'s address must be registered there as redirect_url');

export const consoleAuthSchema = z.union([
  z.strictObject({
    bearer_token: secretRefSchema.describe('a bearer token, sent as `Authorization: Bearer` (the console also takes it on its login page)'),
    role: automationRole,
  }),
  z.strictObject({
    username: z.string().min(1).describe('basic-auth user name (recorded as who acted)'),
    password: secretRefSchema.describe('basic-auth password, by reference'),
    role: automationRole,
  }),
]);

export const consoleSchema = z
  .strictObject({
    auth: consoleAuthSchema.optional()
      .describe('one credential for scripts and automation: `{ bearer_token: REF, role: ROLE }` or `{ username: NAME, password: REF, role: ROLE }`; secrets by reference only'),
    oidc: oidcSchema.optional(),
    session_hours: z.number().int().min(1).max(168).default(12).describe('how long a sign-in (identity provider or the bearer token\'s login page) lasts'),
    timezone: z.string().min(1).optional()
      .refine((zone) => zone === undefined || isTimeZone(zone), { error: 'not an IANA time zone (e.g. Europe/Berlin, UTC)' })
      .describe('IANA time zone the console shows times in (the UTC time on hover); the machine\'s zone when absent'),
    trust_proxy: z.boolean().default(false)
      .describe('the listener is reached only through a reverse proxy: its `X-Forwarded-Proto: https` marks the session cookie `Secure`, and its `X-Forwarded-Host` is the host a POST\'s `Origin` must name (docs/console.md, "Access and safety")'),
  })
  .superRefine((section, ctx) => {
    if (section.auth === undefined && section.oidc === undefined) {
      ctx.addIssue({ code: 'custom', path: ['auth'], message: 'say how operators sign in: `oidc` (the company identity provider), `auth` (a bearer token or basic auth), or both' });
    }
  })
  .describe('The operations console (docs/console.md), served on the `metrics` listener (127.0.0.1:9464 when absent). Off unless this section is present.');

export type ConsoleConfig = z.output<typeof consoleSchema>;
export type OidcConfig = z.output<typeof oidcSchema>;
