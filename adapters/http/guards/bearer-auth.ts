import type { Context } from 'koa';
import { ErrorCode, PlantStoreError, type Principal, type TokenVerdict, type TokenVerifier } from '../../../core/index.js';
import type { Check } from './check.js';

export const realm = 'Bearer realm="plant-store"';
/** The challenge of a 401 40102: a token was sent, and it does not (or no longer) work. */
export const invalidTokenChallenge = `${realm}, error="invalid_token"`;
// RFC 6750 §2.1: the scheme is case-insensitive; the token is a b64token.
const B64TOKEN = '[A-Za-z0-9\\-._~+/]+=*';
const bearerHeader = new RegExp(`^Bearer +(${B64TOKEN}) *$`, 'i');
const b64token = new RegExp(`^${B64TOKEN}$`);

/** Whether `token` could follow "Bearer " in an Authorization header (RFC 6750 §2.1). */
export const isB64token = (token: string): boolean => b64token.test(token);

/** State this middleware leaves for later ones (scopes, rate limits, logs): never the token. */
export interface AuthState {
  principal: Principal;
  /** The principal's subject, under the name the request log reads. */
  tokenHolder: string;
}

/**
 * The token check (a route-guard Check): runs before anything reads the body, so an
 * anonymous caller cannot make us parse it. `onFailure` hears of every rejected request
 * (for the per-address failure limit). A verifier that answers at once (static tokens)
 * costs no promise here.
 */
export function bearerAuth(verifier: TokenVerifier, onFailure: (ctx: Context) => void = () => {}): Check {
  return (ctx) => {
    // Straight from Node's headers: ctx.get would lower-case the name on every request.
    const header = ctx.req.headers.authorization ?? '';
    if (header === '') {
      onFailure(ctx);
      ctx.set('WWW-Authenticate', realm);
      throw new PlantStoreError(ErrorCode.MissingToken, 'missing bearer token: send Authorization: Bearer <token>');
    }
    const verdict = bearerVerdict(header, verifier);
    if (verdict instanceof Promise) return verdict.then((settled) => settle(ctx, settled, onFailure));
    return settle(ctx, verdict, onFailure);
  };
}

/**
 * The verdict on the token of an `Authorization` header ('unknown' when it is missing or
 * malformed): the one check both the routes and the `Expect: 100-continue` answer rely on.
 */
export function bearerVerdict(header: string | undefined, verifier: TokenVerifier): TokenVerdict | Promise<TokenVerdict> {
  const token = header === undefined ? undefined : bearerHeader.exec(header)?.[1];
  return token === undefined ? 'unknown' : verifier.verify(token);
}

function settle(ctx: Context, verdict: TokenVerdict, onFailure: (ctx: Context) => void): void {
  if (verdict === 'unavailable') {
    throw new PlantStoreError(ErrorCode.VerificationUnavailable, 'the token cannot be verified right now (the identity provider is unreachable); retry later');
  }
  if (verdict === 'unknown') {
    onFailure(ctx);
    ctx.set('WWW-Authenticate', invalidTokenChallenge);
    throw new PlantStoreError(ErrorCode.InvalidToken, 'the bearer token is malformed, unknown or expired');
  }
  ctx.state['principal'] = verdict;
  ctx.state['tokenHolder'] = verdict.subject;
}
