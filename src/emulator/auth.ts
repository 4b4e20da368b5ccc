import { HttpError } from './http.js';
import { verifyToken } from './jwt.js';

const unauthorized = (message: string) =>
  new HttpError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer realm="warehouse-integration-service"' });

/** The warehouses of the bearer token, or a 401 whose message never repeats the token. */
export function jwtScope(secret: string, header: string | undefined): number[] {
  if (!header) throw unauthorized('missing Authorization header; send "Authorization: Bearer <JWT>"');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized('the Authorization header must be "Bearer <JWT>"');
  const result = verifyToken(secret, m[1]!);
  if (!result.ok) throw unauthorized(result.reason);
  return [...new Set(result.claims.warehouses)];
}
