import type { Context, Middleware } from 'koa';
import { ErrorCode, PlantStoreError, type TokenVerifier } from '../../core/index.js';

const realm = 'Bearer realm="plant-store"';
// RFC 6750 §2.1: the scheme is case-insensitive; the token is a b64token.
const bearerHeader = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** State this middleware leaves for later ones (rate limits, logs): never the token. */
export interface AuthState {
  tokenHolder: string;
}

/**
 * Runs before anything reads the body, so an anonymous caller cannot make us parse it.
 * `onFailure` hears of every rejected request (for the per-address failure limit).
 */
export function bearerAuth(verifier: TokenVerifier, onFailure: (ctx: Context) => void = () => {}): Middleware<AuthState> {
  return (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      onFailure(ctx);
      ctx.set('WWW-Authenticate', realm);
      throw new PlantStoreError(ErrorCode.MissingToken, 'missing bearer token: send Authorization: Bearer <token>');
    }
    const holder = bearerTokenHolder(header, verifier);
    if (holder === undefined) {
      onFailure(ctx);
      ctx.set('WWW-Authenticate', `${realm}, error="invalid_token"`);
      throw new PlantStoreError(ErrorCode.InvalidToken, 'the bearer token is malformed or unknown');
    }
    ctx.state.tokenHolder = holder;
    return next();
  };
}

/**
 * The holder of the token in an `Authorization` header, or undefined when the header is
 * missing, malformed or names an unknown token. The one check both the routes and the
 * `Expect: 100-continue` answer rely on.
 */
export function bearerTokenHolder(header: string | undefined, verifier: TokenVerifier): string | undefined {
  const token = header === undefined ? undefined : bearerHeader.exec(header)?.[1];
  return token === undefined ? undefined : verifier.verify(token);
}
