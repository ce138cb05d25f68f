import cors from '@koa/cors';
import Koa, { type Middleware } from 'koa';
import type { PlantUseCases, TokenVerifier } from '../../core/index.js';
import { apiDocsRoutes } from './api-docs-routes.js';
import { deliveryRoutes, type WebhookDeliveries } from './delivery-routes.js';
import { errorMiddleware } from './error-middleware.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { operationalRoutes } from './operational-routes.js';
import { plantRoutes } from './plant-routes.js';
import type { HttpLog } from './http-log.js';
import { responseHeaders } from './response-headers.js';
import { routeGuard } from './route-guard.js';

export interface HttpAppOptions {
  readonly useCases: PlantUseCases;
  readonly tokenVerifier: TokenVerifier;
  /** Identity-provider JWTs are accepted (told in the OpenAPI document). */
  readonly acceptsJwt?: boolean;
  /** Prefix of every API path, e.g. `/v1`; empty by default. */
  readonly basePath: string;
  /** The release serving the API, shown in the OpenAPI document. */
  readonly version: string;
  readonly bodyLimitBytes: number;
  /** Resolves when storage answers, rejects (as 50301) when it does not. */
  readonly checkStorage: () => Promise<void>;
  readonly log: HttpLog;
  /** Per-token token bucket; undefined turns it off. */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | undefined;
  /** Failed authentications per minute per client address; undefined turns it off. */
  readonly authFailuresPerMinute?: number | undefined;
  /** Origins allowed by CORS; empty or undefined: no CORS headers at all. */
  readonly corsOrigins?: readonly string[] | undefined;
  /** The webhook delivery state and its retry, served (and documented) when webhooks are configured. */
  readonly webhookDeliveries?: WebhookDeliveries | undefined;
}

/**
 * The Koa application, outermost first: error mapping and the request log, request id and
 * fixed headers, CORS, then the routes. Plant routes check route → failed-auth limit →
 * token → scope → rate limit (route-guard.ts) before their handlers.
 */
export function createHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  // Behind a proxy, ctx.ip would be the proxy's; the server trusts no forwarding header.
  app.proxy = false;
  const guard = routeGuard(options);
  const plants = plantRoutes({
    useCases: options.useCases,
    basePath: options.basePath,
    bodyLimitBytes: options.bodyLimitBytes,
    guard,
  });
  const operations = operationalRoutes(options.checkStorage);
  const docs = apiDocsRoutes(buildOpenApiDocument(options));
  app.use(errorMiddleware(options.log));
  app.use(responseHeaders());
  if (options.corsOrigins?.length) app.use(corsFor(options.corsOrigins));
  // The API first: every other router would otherwise try to match each API request.
  app.use(plants.routes());
  if (options.webhookDeliveries) {
    const deliveries = deliveryRoutes(options.webhookDeliveries, options.basePath, guard);
    app.use(deliveries.routes());
    app.use(deliveries.allowedMethods());
  }
  app.use(operations.routes());
  app.use(docs.routes());
  app.use(plants.allowedMethods());
  app.use(operations.allowedMethods());
  // Koa reports a response it could not deliver here, and would print each with its stack.
  // A client that went away (or was cut off for being too slow) is no failure of ours.
  app.on('error', (error: Error & { code?: string }, ctx?: { state?: { requestId?: string } }) => {
    if (!clientGoneCodes.has(error.code ?? '')) options.log.error({ requestId: ctx?.state?.requestId, err: error }, `response failed: ${error.message}`);
  });
  return app;
}

const clientGoneCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

function corsFor(origins: readonly string[]): Middleware {
  const anyOrigin = origins.includes('*');
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return anyOrigin || origins.includes(origin) ? origin : '';
    },
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposeHeaders: ['Location', 'Link', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id'],
    maxAge: 600,
  });
}
