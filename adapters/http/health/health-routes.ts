import Router from '@koa/router';

/** Routes for operators and load balancers; no token needed, outside the base path. */
export function healthRoutes(checkStorage: () => Promise<void>): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    await checkStorage();
    ctx.body = { status: 'ready' };
  });
  return router;
}
