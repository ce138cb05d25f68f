import Router from '@koa/router';
import type { HttpMetrics } from '../app/http-metrics.js';

export const METRICS_PATH = '/metrics';

/** `/metrics` for Prometheus; no token, at the root whatever the base path (restrict it at the network). */
export function metricsRoutes(metrics: HttpMetrics): Router {
  const router = new Router();
  router.get(METRICS_PATH, async (ctx) => {
    const { contentType, text } = await metrics.exposition();
    ctx.type = contentType;
    ctx.body = text;
  });
  return router;
}
