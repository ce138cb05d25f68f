import type { Context, Middleware } from 'koa';
import { ErrorCode, isPlantStoreError, PlantStoreError } from '../../../core/index.js';
import { statusByErrorCode } from './error-statuses.js';
import { invalidTokenChallenge } from '../guards/bearer-auth.js';
import type { HttpLog } from '../app/http-log.js';
import type { HttpMetrics } from '../app/http-metrics.js';
import { logRequest } from '../app/request-log.js';

/**
 * The outermost middleware: whatever fails below it — request ids and headers, CORS, a
 * route, or the router leaving a bare 404/405 — leaves as `{ error, message }` with the
 * mapped status, and every request then gets its one log line (see logRequest). Headers
 * set before a throw (WWW-Authenticate, Allow, Retry-After) are kept; internals of a 5xx
 * never reach the body.
 */
export function errorMiddleware(log: HttpLog, metrics?: HttpMetrics): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    let failure: PlantStoreError | undefined;
    try {
      await next();
      if (ctx.body == null) routingFailure(ctx);
    } catch (thrown) {
      failure = isPlantStoreError(thrown)
        ? thrown
        : new PlantStoreError(ErrorCode.Internal, 'unexpected failure; the server logged it', { cause: thrown });
      ctx.status = statusByErrorCode[failure.code];
      ctx.body = { error: failure.code, message: failure.message };
      // A token found unusable past the guard (its sandbox ended mid-request) gets the guard's challenge.
      if (failure.code === ErrorCode.InvalidToken && !ctx.response.get('WWW-Authenticate')) ctx.set('WWW-Authenticate', invalidTokenChallenge);
    }
    logRequest(log, ctx, started, failure, metrics);
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
    throw new PlantStoreError(ErrorCode.NoSuchRoute, `no route for ${ctx.method} ${pathOf(ctx)}`);
  }
  if (ctx.status === 405 || ctx.status === 501) {
    throw new PlantStoreError(
      ErrorCode.MethodNotAllowed,
      `${ctx.method} is not allowed on ${pathOf(ctx)}; allowed: ${allowed}`,
    );
  }
}

/**
 * The request target as a message may name it: the path, never the query, where clients
 * put credentials (`?access_token=`) that proxies log with the answer. A target with no
 * path (CONNECT's `host:port`) is cut at its `?` just the same.
 */
function pathOf(ctx: Context): string {
  return (ctx.path ?? ctx.url).split(/[?#]/, 1)[0]!;
}
