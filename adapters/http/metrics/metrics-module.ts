import type { HttpModuleFactory } from '../app/http-module.js';
import { metricsPaths } from './metrics-paths.js';
import { metricsRoutes } from './metrics-routes.js';

/** Prometheus metrics at `/metrics`; on with the `metrics` setting (off: 404 like any unknown path). */
export const metricsModule: HttpModuleFactory = ({ settings, metrics }) =>
  settings.metrics && metrics !== undefined ? { router: metricsRoutes(metrics), paths: metricsPaths() } : undefined;
