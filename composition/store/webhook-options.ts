import { DEFAULT_RETRY_SCHEDULE_MS, type PlantEventType } from '../../core/index.js';
import { durationText, parseDuration } from '../config/duration.js';

export const WEBHOOK_EVENT_TYPES: readonly PlantEventType[] = ['plant.created', 'plant.deleted'];
/** The public contract's one webhook. */
export const DEFAULT_WEBHOOK_EVENTS: readonly PlantEventType[] = ['plant.created'];
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** Webhook delivery, for `createPlantStore` and the server alike. */
export interface WebhookOptions {
  /** Endpoint URLs (http or https); each gets every subscribed event. */
  readonly urls: readonly string[];
  /** Standard Webhooks signing secret, `whsec_<base64>`. */
  readonly secret: string;
  /** Default `['plant.created']`, the public contract's one webhook. */
  readonly events?: readonly PlantEventType[];
  /** Delays between attempts in ms; default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  readonly retryScheduleMs?: readonly number[];
  /** Per attempt; default 10000. */
  readonly timeoutMs?: number;
  /** Allow endpoints resolving to loopback, private, link-local… addresses; default false. */
  readonly allowPrivate?: boolean;
}

/** `whsec_` and base64 of at least 24 bytes (Standard Webhooks secrets are 24 to 64). */
export function secretProblem(secret: string): string | undefined {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match || match[1]!.length % 4 !== 0) return 'must be whsec_ followed by base64 (value not shown)';
  const bytes = Buffer.from(match[1]!, 'base64').length;
  if (bytes < 24 || bytes > 64) return `must hold 24 to 64 bytes of key after whsec_, got ${bytes} (value not shown)`;
  return undefined;
}

/** An endpoint URL's problem, or undefined: http(s), a host, no credentials. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `"${url}" must be http:// or https://`;
  if (parsed.username || parsed.password) return `"${parsed.host}" URL must not carry credentials`;
  return undefined;
}

/** `5s,5m,30m,2h` → ms; undefined when an entry is not a number with ms, s, m or h (at most a week each). */
export function parseRetrySchedule(text: string): number[] | undefined {
  const delays: number[] = [];
  for (const entry of text.split(',')) {
    const ms = parseDuration(entry);
    if (ms === undefined || ms < 1 || ms > 7 * 24 * 3_600_000) return undefined;
    delays.push(ms);
  }
  return delays.length === 0 ? undefined : delays;
}

/** Delays as the setting writes them, each in the largest unit that divides it: `5s,5m,30m,2h`. */
export function retryScheduleText(delays: readonly number[]): string {
  return delays.map(durationText).join(',');
}

/** The core's default schedule, as the setting's text (for --help). */
export const DEFAULT_RETRY_SCHEDULE = retryScheduleText(DEFAULT_RETRY_SCHEDULE_MS);

/** Every problem of embedded webhook options, as one message; undefined when they work. */
export function webhookOptionsProblem(options: WebhookOptions): string | undefined {
  const problems = [
    options.urls.length === 0 ? 'webhooks.urls must name at least one endpoint' : undefined,
    ...options.urls.map((url) => urlProblem(url)),
    typeof options.secret === 'string' ? secretProblem(options.secret) && `webhooks.secret ${secretProblem(options.secret)}` : 'webhooks.secret is required',
    ...(options.events ?? []).map((type) => (WEBHOOK_EVENT_TYPES.includes(type) ? undefined : `webhooks.events: unknown event "${type}"`)),
    options.timeoutMs !== undefined && !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0) ? 'webhooks.timeoutMs must be a positive integer' : undefined,
    (options.retryScheduleMs ?? []).some((ms) => !(Number.isFinite(ms) && ms > 0)) ? 'webhooks.retryScheduleMs must hold positive numbers' : undefined,
  ].filter((problem) => problem !== undefined);
  return problems.length === 0 ? undefined : problems.join('; ');
}
