import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

/** The slice of a structured logger (pino's shape) the HTTP adapter writes to. */
export interface HttpLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface RequestLogState {
  requestId: string;
  tokenHolder?: string;
}

// A caller's id is reused only when it is short and plain: it goes into logs and headers.
const saneRequestId = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * Outermost middleware: gives the request an id (the caller's X-Request-Id when sane),
 * returns it, and writes one line per request once the response is decided. The line has
 * the route, never the query string or headers, so no credential can reach it.
 */
export function requestLog(log: HttpLog): Middleware<RequestLogState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const offered = ctx.get('X-Request-Id');
    const requestId = saneRequestId.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    // Sane by the check above, so straight onto the Node response (ctx.set normalises anew).
    ctx.res.setHeader('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      log.info(
        {
          requestId,
          method: ctx.method,
          route: route ?? null,
          // Only a matched path is logged: its shape is known (ids), while an unmatched
          // one is whatever the client typed, credentials included.
          path: route === undefined ? undefined : ctx.path,
          status: ctx.status,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          tokenHolder: ctx.state.tokenHolder,
        },
        'request',
      );
    }
  };
}
