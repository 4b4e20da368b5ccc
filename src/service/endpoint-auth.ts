import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, isAbsolute, resolve } from 'node:path';
import { readSecret } from '../secret.js';
import type { LoadedConfig } from '../config/load.js';
import type { HttpAuthConfig, SecretRef } from '../config/schema.js';
import { describeAttempt, same, SignInThrottle } from '../console/index.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from './metrics.js';

/** Refuses a request to /metrics or /healthz that lacks the endpoints' credentials; true when it answered. */
export type EndpointGuard = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/**
 * `metrics.auth`: /metrics (and /healthz unless `public_healthz`) need their own credentials, a bearer token or
 * basic auth, read once from their references. Failed attempts go through the same throttle as the console's.
 * Undefined without `metrics.auth`: both are open, as before.
 */
export async function endpointGuard(
  loaded: LoadedConfig, logger: Logger, metrics: ServiceMetrics,
  throttle = new SignInThrottle('metrics', { logger, onRefused: (area, result) => metrics.signInFailures.inc({ area, result }) }),
): Promise<EndpointGuard | undefined> {
  const config = loaded.config.metrics;
  if (!config?.auth) return undefined;
  const base = dirname(resolve(loaded.file));
  const secret = (ref: SecretRef, what: string) => readSecret('env' in ref ? { env: ref.env } : { file: isAbsolute(ref.file) ? ref.file : resolve(base, ref.file) }, what);
  const auth: HttpAuthConfig = config.auth;
  const expected = 'bearer_token' in auth
    ? { kind: 'Bearer' as const, secret: await secret(auth.bearer_token, 'metrics bearer token') }
    : { kind: 'Basic' as const, user: auth.username, secret: await secret(auth.password, 'metrics password') };
  const publicHealth = config.public_healthz;
  return (req, res, path) => {
    if (path === '/healthz' && publicHealth) return false;
    const header = req.headers.authorization ?? '';
    const refuse = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text);
      return true;
    };
    const challenge = { 'www-authenticate': expected.kind === 'Basic' ? 'Basic realm="wisbridge metrics", charset="UTF-8"' : 'Bearer realm="wisbridge metrics"' };
    if (!header) return refuse(401, `${path} needs credentials (metrics.auth)\n`, challenge);
    const wait = throttle.refuse(req);
    if (wait) return refuse(429, `too many failed sign-ins from this address: try again in ${wait} s\n`, { 'retry-after': String(wait) });
    let ok = false;
    if (expected.kind === 'Bearer' && header.startsWith('Bearer ')) ok = same(header.slice(7).trim(), expected.secret);
    if (expected.kind === 'Basic' && header.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      // Both compared always: the answer's timing does not say which one was wrong.
      ok = same(colon < 0 ? decoded : decoded.slice(0, colon), expected.user) && same(colon < 0 ? '' : decoded.slice(colon + 1), expected.secret);
    }
    if (ok) return false;
    const attempt = describeAttempt(false, header);
    throttle.failed(req, { ...attempt, via: `${path} ${attempt.via}` });
    return refuse(401, `wrong credentials for ${path}\n`, challenge);
  };
}
