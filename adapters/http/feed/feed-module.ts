import Router from '@koa/router';
import { ErrorCode, PlantStoreError } from '../../../core/index.js';
import type { HttpModuleFactory } from '../app/http-module.js';
import { feedPaths } from './feed-paths.js';
import { FEED_PATH, feedRoutes } from './feed-routes.js';

/**
 * The change feed, served when the storage keeps a change log (memory and disk do; MongoDB
 * and a custom repository may not). Without one the path is no route (404 40400, and not in
 * the OpenAPI document), rather than falling through to `/plants/{id}` as a bad id.
 */
export const feedModule: HttpModuleFactory = ({ useCases, settings: { basePath, feedStreams, feedStreamsPerToken }, guard, closing, metrics }) => {
  if (useCases.followChanges.available) {
    const streams = { total: feedStreams, perToken: feedStreamsPerToken };
    return { router: feedRoutes({ followChanges: useCases.followChanges, basePath, guard, closing, metrics, streams }), paths: feedPaths(basePath) };
  }
  const router = new Router({ prefix: basePath, sensitive: true });
  router.all(FEED_PATH, () => {
    throw new PlantStoreError(ErrorCode.NoSuchRoute, `no route for ${FEED_PATH}: this storage keeps no change log`);
  });
  return { router, paths: {} };
};
