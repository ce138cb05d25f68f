import cors from '@koa/cors';
import Koa, { type Middleware } from 'koa';
import { ErrorCode, PlantStoreError, type PlantUseCases, type TokenVerifier } from '../../../core/index.js';
import { errorMiddleware } from '../errors/error-middleware.js';
import { routeGuard } from '../guards/route-guard.js';
import { httpModules } from '../http-modules.js';
import { buildOpenApiDocument, type OpenApiDocument } from '../openapi/openapi-document.js';
import type { HttpModuleFactory, ModuleContext, SelfServiceHttp, WebhookDeliveries } from './http-module.js';
import type { HttpLog } from './http-log.js';
import type { HttpMetrics } from './http-metrics.js';
import type { HttpConfig } from './http-settings.js';
import { responseHeaders } from './response-headers.js';

export interface HttpAppOptions {
  /** How to serve: every setting decided (HTTP_DEFAULTS applied); the modules read theirs here. */
  readonly settings: HttpConfig;
  readonly log: HttpLog;
  readonly useCases: PlantUseCases;
  readonly tokenVerifier: TokenVerifier;
  /** Identity-provider JWTs are accepted (told in the OpenAPI document). */
  readonly acceptsJwt?: boolean;
  /** The release serving the API, shown in the OpenAPI document. */
  readonly version: string;
  /** Resolves when storage answers, rejects (as 50301) when it does not. */
  readonly checkStorage: () => Promise<void>;
  /** The webhook delivery state and its retry, served (and documented) when webhooks are configured. */
  readonly webhookDeliveries?: WebhookDeliveries | undefined;
  /** Self-service sandboxes, served (and documented) when sign-up is on. */
  readonly selfService?: SelfServiceHttp | undefined;
  /** Where requests are counted and what `/metrics` serves, when the `metrics` setting is on. */
  readonly metrics?: HttpMetrics | undefined;
  /** Aborts when the server is closing (change streams end then); default: never. */
  readonly closing?: AbortSignal;
  /** The features served; default all of them (http-modules.ts). */
  readonly modules?: readonly HttpModuleFactory[];
}

/**
 * The Koa application, outermost first: error mapping and the request log, request id and
 * fixed headers, CORS, then each module's routes in the order of the list, then their 405
 * and OPTIONS answers. Guarded routes check route → failed-auth limit → token → scope →
 * rate limit (route-guard.ts) before their handlers.
 */
export function createHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  // Behind a proxy, ctx.ip would be the proxy's; the server trusts no forwarding header.
  app.proxy = false;
  let document: OpenApiDocument | undefined;
  const { settings } = options;
  const context: ModuleContext = {
    settings,
    useCases: options.useCases,
    version: options.version,
    guard: routeGuard({ ...settings, tokenVerifier: options.tokenVerifier }),
    checkStorage: options.checkStorage,
    webhookDeliveries: options.webhookDeliveries,
    selfService: options.selfService,
    metrics: options.metrics,
    closing: options.closing ?? new AbortController().signal,
    openApiDocument: () =>
      (document ??= buildOpenApiDocument({ ...settings, version: options.version, acceptsJwt: options.acceptsJwt }, Object.assign({}, ...modules.map((module) => module.paths)))),
  };
  const modules = (options.modules ?? httpModules).map((make) => make(context)).filter((module) => module !== undefined);
  app.use(errorMiddleware(options.log, options.metrics));
  app.use(responseHeaders());
  if (settings.corsOrigins.length > 0) app.use(corsFor(settings.corsOrigins));
  app.use(noPathlessTargets);
  for (const module of modules) app.use(module.router.routes());
  for (const module of modules) app.use(module.router.allowedMethods());
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

/**
 * A target starting with `//` is no route of ours, and Koa reads it as a URL with a host
 * (`//x@[y` then throws "Invalid URL" from every path lookup): answered 404 before any
 * router looks at it.
 */
const noPathlessTargets: Middleware = async (ctx, next) => {
  if (ctx.url.startsWith('//')) throw new PlantStoreError(ErrorCode.NoSuchRoute, `no route for ${ctx.method} ${ctx.url.split(/[?#]/, 1)[0]}`);
  await next();
};
