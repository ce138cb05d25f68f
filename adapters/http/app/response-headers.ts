import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { RequestLogState } from './request-log.js';

// A caller's id is reused only when it is short and plain: it goes into logs and headers.
const saneRequestId = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * Headers every answer carries: a request id (the caller's X-Request-Id when sane), and
 * the marks of data for one client, never to be sniffed into HTML or kept by a shared cache.
 */
export function responseHeaders(): Middleware<RequestLogState> {
  return (ctx, next) => {
    const offered = ctx.req.headers['x-request-id'];
    const requestId = typeof offered === 'string' && saneRequestId.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    // Straight onto the Node response: ctx.set would normalise fixed, valid values anew,
    // with a few allocations, on every request.
    ctx.res.setHeader('X-Request-Id', requestId);
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    ctx.res.setHeader('Cache-Control', 'no-store');
    return next();
  };
}
