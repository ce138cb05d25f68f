import type { HttpModuleFactory } from './app/http-module.js';
import { deliveriesModule } from './deliveries/deliveries-module.js';
import { docsModule } from './docs/docs-module.js';
import { feedModule } from './feed/feed-module.js';
import { healthModule } from './health/health-module.js';
import { metricsModule } from './metrics/metrics-module.js';
import { plantsModule } from './plants/plants-module.js';
import { sandboxesModule } from './sandboxes/sandboxes-module.js';

/**
 * The features of the HTTP API, in the order their routes are tried (the API first: every
 * other router would otherwise try to match each API request) and their paths documented. The feed comes before the plants: `/plants/changes` would
 * otherwise be taken for a plant id.
 */
export const httpModules: readonly HttpModuleFactory[] = [feedModule, plantsModule, deliveriesModule, sandboxesModule, healthModule, metricsModule, docsModule];
