// oidc-provider 9 ships no types: the little the tests use of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: {
      clients: Array<Record<string, unknown>>;
      pkce?: { required(): boolean };
      claims?: Record<string, string[]>;
      findAccount(ctx: unknown, id: string): Account | undefined | Promise<Account | undefined>;
      cookies?: { keys: string[] };
      features?: Record<string, { enabled: boolean }>;
    });
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  }
}
