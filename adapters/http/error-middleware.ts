import type { Context, Middleware } from 'koa';
import { ErrorCode, isPlantStoreError, PlantStoreError } from '../../core/index.js';
import { statusByErrorCode } from './error-statuses.js';

/**
 * Told about every failure answered with a 5xx (50001, 50301): the caller sees only the
 * code, so the cause must reach the log.
 */
export type ServerErrorReporter = (error: PlantStoreError, ctx: Context) => void;

/**
 * Outermost middleware: every failure, thrown or left as a bare 404/405 by the router,
 * leaves as `{ error, message }` with the mapped status. Headers set before the throw
 * (WWW-Authenticate, Allow, Retry-After) are kept; internals of 5xx never reach the body.
 */
export function errorMiddleware(reportServerError: ServerErrorReporter): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null) routingFailure(ctx);
    } catch (thrown) {
      const error = isPlantStoreError(thrown)
        ? thrown
        : new PlantStoreError(ErrorCode.Internal, 'unexpected failure; the server logged it', { cause: thrown });
      ctx.status = statusByErrorCode[error.code];
      ctx.body = { error: error.code, message: error.message };
      if (ctx.status >= 500) reportServerError(error, ctx);
    }
  };
}

/**
 * The router answers unmatched requests with an empty 404, 405 or 501 (a method it knows
 * no route for, on any path). A 405/501 with nothing in `Allow` means no route has this
 * path at all: that is an unknown path, whatever the method.
 */
function routingFailure(ctx: Context): void {
  const allowed = String(ctx.response.get('Allow') ?? '').trim();
  if (ctx.status === 404 || ((ctx.status === 405 || ctx.status === 501) && allowed === '')) {
    ctx.remove('Allow');
    throw new PlantStoreError(ErrorCode.NoSuchRoute, `no route for ${ctx.method} ${ctx.path ?? ctx.url}`);
  }
  if (ctx.status === 405 || ctx.status === 501) {
    throw new PlantStoreError(
      ErrorCode.MethodNotAllowed,
      `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allowed}`,
    );
  }
}
