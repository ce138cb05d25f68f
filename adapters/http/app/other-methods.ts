import type Router from '@koa/router';
import { METHODS } from 'node:http';
import { ErrorCode, PlantStoreError } from '../../../core/index.js';

/** The name of a route that answers only the methods a path does not serve: no operation, not documented. */
export const OTHER_METHODS_ROUTE = 'other-methods';

/**
 * Answers every method but `allowed` on `path` here, as the router's own 405 and OPTIONS
 * answers would, with this path's `Allow` alone. For a path another router would also take
 * (`/plants/changes` is `/plants/{id}` with the id "changes"): without it, a DELETE there
 * ran as a plant's and a POST's `Allow` offered DELETE. Register it after the path's routes.
 */
export function answerOtherMethods(router: Router<any>, path: string, allowed: readonly string[]): void {
  const allow = allowed.join(', ');
  // CONNECT too: this server answers it like any method (node-server.ts).
  const others = METHODS.filter((method) => !allowed.includes(method));
  router.register(path, others, (ctx) => {
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
      return;
    }
    throw new PlantStoreError(ErrorCode.MethodNotAllowed, `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`);
  }, { name: OTHER_METHODS_ROUTE });
}
