import type { Context } from 'koa';
import type { PlantStoreError } from '../../../core/index.js';
import type { HttpLog, RequestLogFields } from './http-log.js';
import type { HttpMetrics } from './http-metrics.js';
import { traceIdOf } from './traceparent.js';

/** What earlier middleware leaves for the request line. */
export interface RequestLogState {
  requestId?: string;
  tokenHolder?: string;
}

/**
 * One line per request, written once its answer is decided: at `info`, or at `error` with
 * the cause for a 5xx (the client saw only the code and the request id). The line has the
 * route and, for a matched route whose parameters are ids, the path — never the query
 * string or headers, so no credential can reach it — the error code of any error answer, and the trace id of a
 * W3C `traceparent`. The metrics count the request from the same fields.
 */
export function logRequest(log: HttpLog, ctx: Context, startedMs: number, failure: PlantStoreError | undefined, metrics?: HttpMetrics): void {
  const route = (ctx as { _matchedRoute?: string })._matchedRoute;
  const state = ctx.state as RequestLogState;
  const fields: RequestLogFields = {
    requestId: state.requestId,
    method: ctx.method,
    route: route ?? null,
    path: loggedPath(ctx, route),
    status: ctx.status,
    error: failure?.code,
    // To the microsecond: finer is noise, and a shorter number is cheaper to write on every line.
    durationMs: Math.round((performance.now() - startedMs) * 1000) / 1000,
    tokenHolder: state.tokenHolder,
    traceId: traceIdOf(ctx.req.headers.traceparent),
  };
  try {
    metrics?.request(fields);
    if (ctx.status >= 500) log.error({ ...fields, err: failure?.cause ?? failure }, 'request');
    else if (log.request !== undefined) log.request(fields);
    else log.info(fields, 'request');
  } catch (error) {
    // The answer is already decided; a failing log must not change it or crash the process.
    process.stderr.write(`plant-store: the request log failed: ${(error as Error)?.message}\n`);
  }
}

/** A route's parameter as logged: an id, digits only (anything else may be what the client pasted there, a token say). */
const LOGGED_PARAMETER = /^[0-9]{1,20}$/;

/**
 * The path of a matched route, or, when one of its parameters is not an id (`/plants/<a
 * token>` answers 400 but matches `/plants/:id`), the route itself. An unmatched path is not
 * logged at all: it is whatever the client typed, credentials included.
 */
function loggedPath(ctx: Context, route: string | undefined): string | undefined {
  if (route === undefined) return undefined;
  const params = (ctx as { params?: Record<string, string> }).params ?? {};
  return Object.values(params).every((value) => LOGGED_PARAMETER.test(value)) ? ctx.path : route;
}

/** The request line as a person reads it: `GET /plants/7 404 40401 0.4 ms token-1`. */
export function requestLine(fields: Record<string, unknown>): string {
  const parts = [fields['method'], fields['path'] ?? '(no route)', fields['status']];
  if (fields['error'] !== undefined) parts.push(fields['error']);
  parts.push(`${Number(fields['durationMs']).toFixed(1)} ms`);
  if (fields['tokenHolder'] !== undefined) parts.push(fields['tokenHolder']);
  if (fields['traceId'] !== undefined) parts.push(`trace ${fields['traceId']}`);
  return parts.join(' ');
}
