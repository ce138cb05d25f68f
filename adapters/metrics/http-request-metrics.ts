import { METHODS } from 'node:http';
import type { Gauge, Registry } from 'prom-client';
import { ErrorCode } from '../../core/index.js';
import type { RequestLogFields } from '../http/app/http-log.js';
import type { HttpMetrics } from '../http/app/http-metrics.js';
import { CALL_SECONDS } from './buckets.js';
import { TalliedCounter, type CounterSeries } from './tallied-counter.js';
import { TalliedHistogram, type HistogramSeries } from './tallied-histogram.js';

const REFUSALS = ['missing_token', 'invalid_token', 'insufficient_scope', 'rate_limit', 'auth_failure_limit', 'quota'] as const;
type Refusal = (typeof REFUSALS)[number];

/**
 * Why a request was refused, from its error code: a 429 before any token was accepted can
 * only be the failed-authentication limit (it is checked first), after it the token's rate.
 */
function refusalOf(error: number, tokenHolder: string | undefined): Refusal | undefined {
  switch (error) {
    case ErrorCode.MissingToken:
      return 'missing_token';
    case ErrorCode.InvalidToken:
      return 'invalid_token';
    case ErrorCode.InsufficientScope:
      return 'insufficient_scope';
    case ErrorCode.RateLimited:
      return tokenHolder === undefined ? 'auth_failure_limit' : 'rate_limit';
    case ErrorCode.SandboxFull:
      return 'quota';
    default:
      return undefined;
  }
}

/** One route's series for one method: its durations, and a count per status. */
interface RouteSeries {
  readonly labels: { readonly method: string; readonly route: string };
  readonly durations: HistogramSeries;
  readonly byStatus: Map<number, CounterSeries>;
}

const knownMethods = new Set(METHODS);

/**
 * The HTTP metrics, counted from each request line: requests by method, route and status,
 * durations by method and route, refusals by reason. Labels are bounded: the route is the
 * matched route's template (`/plants/{id}`), `unmatched` when no route answered; a method
 * Node's parser does not know would be `other`. The series of each label set is made on its
 * first request and kept, so a request costs two map lookups and two additions.
 */
export class HttpRequestMetrics implements HttpMetrics {
  private readonly requests: TalliedCounter<'method' | 'route' | 'status'>;
  private readonly durations: TalliedHistogram<'method' | 'route'>;
  private readonly refusals: Record<Refusal, CounterSeries>;
  private readonly streams: Gauge | undefined;
  /** By the request line's route (null: unmatched), then by method. */
  private readonly series = new Map<string | null, Map<string, RouteSeries>>();

  constructor(private readonly registry: Registry) {
    this.requests = new TalliedCounter({
      name: 'plant_store_http_requests_total',
      help: 'HTTP requests answered, by method, route template (unmatched: no route) and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.durations = new TalliedHistogram({
      name: 'plant_store_http_request_duration_seconds',
      help: 'From a request reaching the application to its answer being decided, by method and route template.',
      labelNames: ['method', 'route'],
      buckets: CALL_SECONDS,
      registers: [registry],
    });
    const refusals = new TalliedCounter({
      name: 'plant_store_refusals_total',
      help: 'Requests refused before their operation ran, by reason.',
      labelNames: ['reason'],
      registers: [registry],
    });
    // Made with the store's registry (createMetricsRegistry), so an embedded store shows it too.
    this.streams = registry.getSingleMetric('plant_store_feed_streams') as Gauge | undefined;
    this.refusals = Object.fromEntries(REFUSALS.map((reason) => [reason, refusals.series({ reason })])) as Record<Refusal, CounterSeries>;
  }

  request(fields: RequestLogFields): void {
    const route = this.routeSeries(fields.method, fields.route);
    let count = route.byStatus.get(fields.status);
    if (count === undefined) {
      count = this.requests.series({ ...route.labels, status: String(fields.status) });
      route.byStatus.set(fields.status, count);
    }
    count.inc();
    route.durations.observe(fields.durationMs / 1000);
    if (fields.error !== undefined) {
      const refusal = refusalOf(fields.error, fields.tokenHolder);
      if (refusal !== undefined) this.refusals[refusal].inc();
    }
  }

  feedStreams(delta: 1 | -1): void {
    this.streams?.inc(delta);
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private routeSeries(method: string, route: string | null): RouteSeries {
    let byMethod = this.series.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.series.set(route, byMethod);
    }
    const found = byMethod.get(method);
    if (found !== undefined) return found;
    // Node's parser admits only the methods it knows; should another come, it is not a new series.
    const label = knownMethods.has(method) ? method : 'other';
    if (label !== method) return byMethod.get(label) ?? this.routeSeries(label, route);
    const labels = { method, route: route === null ? 'unmatched' : templateOf(route) };
    const made: RouteSeries = { labels, durations: this.durations.series(labels), byStatus: new Map() };
    byMethod.set(method, made);
    return made;
  }
}

/** A route pattern as the contract names it: `/plants/:id` → `/plants/{id}`. */
function templateOf(pattern: string): string {
  return pattern.replace(/:(\w+)/g, '{$1}');
}

const byRegistry = new WeakMap<Registry, HttpRequestMetrics>();

/** The HTTP metrics kept in `registry`: one set, however many servers serve its store. */
export function httpRequestMetricsIn(registry: Registry): HttpRequestMetrics {
  let metrics = byRegistry.get(registry);
  if (metrics === undefined) {
    metrics = new HttpRequestMetrics(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}
