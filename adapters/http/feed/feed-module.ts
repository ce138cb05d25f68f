import type { HttpModuleFactory } from '../app/http-module.js';
import { feedPaths } from './feed-paths.js';
import { feedRoutes } from './feed-routes.js';

/** The change feed; served when the storage keeps a change log (every built-in one does). */
export const feedModule: HttpModuleFactory = ({ useCases, settings: { basePath }, guard, closing, metrics }) =>
  useCases.followChanges?.available ? { router: feedRoutes({ followChanges: useCases.followChanges, basePath, guard, closing, metrics }), paths: feedPaths(basePath) } : undefined;
