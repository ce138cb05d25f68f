import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { FollowChanges, PlantOperation } from '../../../core/index.js';
import { isB64token, type AuthState } from '../guards/bearer-auth.js';
import type { HttpMetrics } from '../app/http-metrics.js';
import { answerOtherMethods } from '../app/other-methods.js';
import { tooManyRequests } from '../guards/rate-limit.js';
import { writeEventStream, type EventStreamLimits } from './event-stream.js';
import { OpenStreams, type StreamLimits } from './open-streams.js';

export const FEED_PATH = '/plants/changes';

/** Longest cursor read from a request: longer is no cursor of ours (a reset), and is not kept. */
const MAX_CURSOR_LENGTH = 128;

const STREAM_HEADERS = { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' } as const;

export interface FeedRoutesOptions {
  readonly followChanges: FollowChanges;
  readonly basePath: string;
  readonly guard: (operation: PlantOperation) => Middleware;
  /** Aborts when the server closes: every open stream ends then. */
  readonly closing: AbortSignal;
  readonly metrics?: HttpMetrics | undefined;
  readonly limits?: EventStreamLimits;
  /** Streams open at once, in all and per token: past either, 429. */
  readonly streams: StreamLimits;
}

/** A refused stream may be asked for again this much later (a stream ends at the latest when its client stops reading, 10 s). */
const RETRY_AFTER_SECONDS = 5;

/** `GET /plants/changes`: the caller's sandbox's changes as Server-Sent Events (event-stream.ts). */
export function feedRoutes(options: FeedRoutesOptions): Router<AuthState> {
  const router = new Router<AuthState>({ prefix: options.basePath, sensitive: true });
  const open = new OpenStreams(options.streams);
  router.get(FEED_PATH, tokenFromQuery, options.guard('followChanges') as Middleware<AuthState>, async (ctx) => {
    if (ctx.method === 'HEAD') {
      // GET's headers, at once: a stream has no end for a HEAD to wait for.
      ctx.status = 200;
      ctx.set(STREAM_HEADERS);
      return;
    }
    const holder = ctx.state.tokenHolder;
    const refused = open.open(holder);
    if (refused !== undefined) throw tooManyRequests(ctx, RETRY_AFTER_SECONDS, refused);
    const stop = new AbortController();
    const onClosing = () => stop.abort();
    options.closing.addEventListener('abort', onClosing, { once: true });
    try {
      const following = await options.followChanges.execute(cursorOf(ctx.req.headers['last-event-id'], ctx.query['after']), ctx.state.principal.sandbox ?? undefined, stop.signal);
      // The stream is written here, not by Koa; the request line is logged when it ends.
      ctx.status = 200;
      ctx.respond = false;
      ctx.res.writeHead(200, STREAM_HEADERS);
      options.metrics?.feedStreams(1);
      try {
        if (options.closing.aborted) stop.abort();
        await writeEventStream(ctx.res, following, stop, options.limits);
      } finally {
        options.metrics?.feedStreams(-1);
      }
    } finally {
      open.close(holder);
      options.closing.removeEventListener('abort', onClosing);
      stop.abort();
    }
  });
  answerOtherMethods(router, FEED_PATH, ['HEAD', 'GET']);
  return router;
}

/**
 * Where to resume: `Last-Event-ID` (what a browser's EventSource sends when it reconnects)
 * before `?after=` (what the page first asked for). Anything unusable is still a cursor, of
 * nothing: the stream starts with `feed.reset`, never an error.
 */
function cursorOf(lastEventId: string | string[] | undefined, after: string | string[] | undefined): string | undefined {
  const given = [lastEventId, after].map((value) => (Array.isArray(value) ? value[0] : value)).find((value) => value !== undefined && value !== '');
  if (given === undefined) return undefined;
  return given.length > MAX_CURSOR_LENGTH ? '' : given;
}

/**
 * A browser's EventSource cannot send an Authorization header, so on this route alone the
 * token may come as `?access_token=` (RFC 6750 §2.3) when no header does. The request line
 * never logs a query string; the answer is `no-store`, as §2.3 asks.
 */
const tokenFromQuery: Middleware = async (ctx, next) => {
  const token = ctx.query['access_token'];
  if (ctx.req.headers.authorization === undefined && typeof token === 'string' && isB64token(token)) ctx.req.headers.authorization = `Bearer ${token}`;
  await next();
};
