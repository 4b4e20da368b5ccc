import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { OidcConfig } from '../config/schema.js';
import { highestRole, type Role } from './roles.js';

// Sign-in with the company's identity provider: OpenID Connect's authorization code flow with PKCE, through
// openid-client (discovery, state, nonce, ID token checks). What a sign-in needs between the redirect to the provider
// and its answer (state, nonce, PKCE verifier) stays here, keyed by a random id the browser holds in a short-lived
// cookie: the browser never sees the verifier, and an answer is taken once.

/** How long a browser may spend at the provider between the redirect and its answer. */
export const FLOW_MS = 10 * 60_000;
/** Sign-ins under way kept at most: anyone can start one, so the oldest make room. */
const MAX_FLOWS = 1000;

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  expires: number;
}

/** A finished sign-in: the person (as the actions log names them) and their role; or why it was refused. */
export type OidcOutcome =
  | { ok: true; name: string; subject: string; role: Role }
  | { ok: false; status: 401 | 403 | 502; message: string };

type Claims = Record<string, unknown>;

/** The values a claim carries (a text or a list of texts), found by a dotted path (`realm_access.roles`). */
export function claimValues(claims: Claims, path: string): string[] {
  let value: unknown = claims;
  for (const key of path.split('.')) {
    value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Claims)[key] : undefined;
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Who the person is, as the actions log names them: their user name, else e-mail, else the provider's subject id. */
function nameOf(claims: Claims, subject: string): string {
  for (const key of ['preferred_username', 'email']) {
    const value = claims[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 100);
  }
  return subject.slice(0, 100);
}

export class OidcSignIn {
  #discovered: Promise<client.Configuration> | undefined;
  readonly #flows = new Map<string, Flow>();

  constructor(
    readonly settings: OidcConfig,
    private readonly secret: string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The provider's metadata, read once at the first sign-in; a failure is not kept, so the next sign-in asks again. */
  #configuration(): Promise<client.Configuration> {
    this.#discovered ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      const auth = this.secret === undefined ? client.None() : client.ClientSecretBasic(this.secret);
      // Plain http passes the schema only for a loopback issuer.
      const options = issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined;
      const configuration = await client.discovery(issuer, this.settings.client_id, undefined, auth, { ...options, timeout: 10 });
      configuration.timeout = 10;
      return configuration;
    })();
    this.#discovered.catch(() => (this.#discovered = undefined));
    return this.#discovered;
  }

  /** A new sign-in: where to send the browser, and the id of its flow (the browser keeps it in a cookie). */
  async start(): Promise<{ flowId: string; location: string }> {
    const configuration = await this.#configuration();
    const flow: Flow = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), expires: this.now() + FLOW_MS };
    const location = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.settings.redirect_url, scope: this.settings.scopes.join(' '), state: flow.state, nonce: flow.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier), code_challenge_method: 'S256',
    });
    this.#prune();
    const flowId = randomBytes(24).toString('base64url');
    this.#flows.set(flowId, flow);
    return { flowId, location: location.href };
  }

  #prune(): void {
    const now = this.now();
    for (const [id, flow] of this.#flows) if (flow.expires < now) this.#flows.delete(id);
    while (this.#flows.size >= MAX_FLOWS) this.#flows.delete(this.#flows.keys().next().value as string);
  }

  /**
   * The provider's answer (the callback's query) for the flow the browser's cookie names: the code is exchanged with
   * the PKCE verifier, the state and the ID token's nonce, issuer, audience and signature checked (openid-client),
   * the role read from the claims of the ID token and userinfo. A flow is used once, whatever came of it.
   */
  async finish(flowId: string | undefined, answer: URLSearchParams): Promise<OidcOutcome> {
    const flow = flowId === undefined ? undefined : this.#flows.get(flowId);
    if (flowId !== undefined) this.#flows.delete(flowId);
    if (!flow || flow.expires < this.now()) {
      return { ok: false, status: 401, message: 'No sign-in was started in this browser, or it took longer than 10 minutes: sign in again.' };
    }
    let configuration: client.Configuration;
    try {
      configuration = await this.#configuration();
    } catch (error) {
      return { ok: false, status: 502, message: `The identity provider cannot be reached: ${describe(error)}` };
    }
    const current = new URL(this.settings.redirect_url);
    current.search = answer.toString();
    let claims: Claims;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true,
      });
      const idToken = tokens.claims()!;
      claims = { ...idToken };
      if (configuration.serverMetadata().userinfo_endpoint) {
        // Claims the provider releases only at userinfo (groups, often): the ID token's own claims win.
        claims = { ...(await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub)), ...idToken };
      }
    } catch (error) {
      return { ok: false, status: 401, message: `Sign-in refused: ${describe(error)}. Nothing was signed in; sign in again.` };
    }
    const subject = String(claims.sub);
    const name = nameOf(claims, subject);
    const values = claimValues(claims, this.settings.roles_claim);
    const role = highestRole(values.filter((v) => Object.hasOwn(this.settings.roles, v)).map((v) => this.settings.roles[v])) ?? this.settings.default_role;
    if (!role) {
      return {
        ok: false, status: 403,
        message: `Signed in at the identity provider as ${name}, but no value of its "${this.settings.roles_claim}" claim (${values.join(', ') || 'none'}) is given a console role: ask an administrator to add you to a group the console knows.`,
      };
    }
    return { ok: true, name, subject, role };
  }
}

/** An error of the sign-in as words: the provider's own error code and description when it sent one. */
function describe(error: unknown): string {
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) {
    return `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
  }
  const cause = (error as { cause?: unknown }).cause;
  const reason = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
  return `${error instanceof Error ? error.message : String(error)}${reason}`.slice(0, 300);
}
