import type { Middleware } from 'koa';

/**
 * Headers every answer carries: API responses are data for one client, never to be
 * sniffed into HTML or kept by a shared cache.
 */
export function responseHeaders(): Middleware {
  return (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    return next();
  };
}
