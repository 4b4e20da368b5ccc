import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** The people of the test provider: their claims, `groups` being the claim the console maps to roles. */
export const ACCOUNTS: Record<string, { preferred_username?: string; email?: string; groups?: string[] }> = {
  vera: { preferred_username: 'vera', email: 'vera@example.com', groups: ['wisbridge-viewers'] },
  otto: { preferred_username: 'otto', email: 'otto@example.com', groups: ['staff', 'wisbridge-operators'] },
  ada: { preferred_username: 'ada', email: 'ada@example.com', groups: ['wisbridge-admins'] },
  /** No user name: the console names her by her e-mail. */
  mia: { email: 'mia@example.com', groups: ['wisbridge-operators'] },
  /** In no group the console maps. */
  nobody: { preferred_username: 'nobody', groups: ['staff'] },
};

export const CLIENT_ID = 'wisbridge-console';
export const CLIENT_SECRET = 'oidc-client-secret-5150-qwerty';

/**
 * A real OpenID Provider (oidc-provider, certified) on a loopback port, with its development login form (any account
 * of ACCOUNTS, any password) and consent page. `host`: another loopback address than the console's makes the provider
 * another site for the browser, as a company's provider is. Its port is known before the console's configuration is
 * written; `register` names the console's redirect URL once the console's port is known too.
 */
export async function startOidcProvider(host = '127.0.0.1') {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    register(redirectUrl: string) {
      const provider = new Provider(issuer, {
        clients: [{
          client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUrl], grant_types: ['authorization_code'], response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        }],
        pkce: { required: () => true },
        claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
        findAccount: (_ctx, id) => (Object.hasOwn(ACCOUNTS, id) ? { accountId: id, claims: () => ({ sub: id, ...ACCOUNTS[id] }) } : undefined),
        cookies: { keys: ['test-provider-cookie-key'] },
        features: { devInteractions: { enabled: true } },
      });
      const callback = provider.callback();
      handler = (req, res) => void callback(req, res);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The console's `oidc:` section for this provider (roles from `groups`). */
export const oidcSection = (issuer: string, redirectUrl: string, extra = '') => `  oidc:
    issuer: ${issuer}
    client_id: ${CLIENT_ID}
    client_secret: { file: oidc-client-secret }
    redirect_url: ${redirectUrl}
    scopes: [openid, profile, email, groups]
    roles_claim: groups
    roles: { wisbridge-viewers: viewer, wisbridge-operators: operator, wisbridge-admins: admin }
    provider_name: Example Corp${extra}
`;
