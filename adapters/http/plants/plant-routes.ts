import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { NextPageQuery, PlantOperation, PlantUseCases } from '../../../core/index.js';
import { inTrace } from '../../tracing/trace-scope.js';
import { traceIdOf } from '../app/traceparent.js';
import type { AuthState } from '../guards/bearer-auth.js';
import { jsonBody, type JsonBodyState } from './json-body.js';
import { decimal, pageQueryFrom } from './parameter-text.js';

export interface PlantRoutesOptions {
  readonly useCases: PlantUseCases;
  /** Prefix of every API path, e.g. `/v1`; empty by default. */
  readonly basePath: string;
  readonly bodyLimitBytes: number;
  /** Authentication, scope and rate limits for an operation: run before anything else. */
  readonly guard: (operation: PlantOperation) => Middleware;
}

type State = AuthState & JsonBodyState;

/** The /plants routes: each handler translates HTTP to one use case call and back. */
export function plantRoutes(options: PlantRoutesOptions): Router<State> {
  const { useCases, basePath } = options;
  // Paths are case-sensitive, as URLs are (RFC 3986); a trailing slash is tolerated.
  const router = new Router<State>({ prefix: basePath, sensitive: true });
  const guard = (operation: PlantOperation) => options.guard(operation) as Middleware<State>;

  // The guard has refused a principal whose token names no sandbox (null): what is left is
  // its sandbox, or undefined for the default one.
  const sandbox = (ctx: { state: State }) => ctx.state.principal.sandbox ?? undefined;

  router.get('/plants', guard('listPlants'), async (ctx) => {
    const page = await useCases.listPlants.execute(pageQueryFrom(ctx.query), sandbox(ctx));
    if (page.next !== undefined) ctx.set('Link', nextPageLink(`${basePath}/plants`, ctx.querystring, page.next));
    ctx.body = page.plants;
  });

  router.get('/plants/:id', guard('getPlant'), async (ctx) => {
    ctx.body = await useCases.getPlant.execute(decimal(ctx.params['id']!), sandbox(ctx));
  });

  router.post('/plants', guard('createPlant'), jsonBody(options.bodyLimitBytes), async (ctx) => {
    // A change's webhooks carry the trace id of its request (see trace-scope.ts).
    const plant = await inTrace(traceIdOf(ctx.req.headers.traceparent), () => useCases.createPlant.execute(ctx.state.json, sandbox(ctx), ctx.state.principal.maxPlants));
    ctx.set('Location', `${basePath}/plants/${plant.id}`);
    ctx.body = plant;
  });

  router.delete('/plants/:id', guard('deletePlant'), async (ctx) => {
    const id = decimal(ctx.params['id']!);
    await inTrace(traceIdOf(ctx.req.headers.traceparent), () => useCases.deletePlant.execute(id, sandbox(ctx)));
    ctx.status = 204;
  });

  return router;
}

/** RFC 8288 next link: the same query with the cursor moved, every other parameter kept. */
function nextPageLink(path: string, querystring: string, next: NextPageQuery): string {
  const query = new URLSearchParams(querystring);
  query.set('limit', String(next.limit));
  query.set('after', String(next.after));
  return `<${path}?${query}>; rel="next"`;
}
