import { guardedOperation } from '../openapi/operations.js';
import { rateLimitHeaders, response } from '../openapi/openapi-responses.js';
import type { JsonSchema } from '../openapi/openapi-schemas.js';
import { FEED_PATH } from './feed-routes.js';

/** `/plants/changes`, as feed-routes.ts serves it. */
export function feedPaths(basePath: string): Record<string, JsonSchema> {
  return {
    [`${basePath}${FEED_PATH}`]: {
      get: {
        ...guardedOperation(
          'followChanges',
          'Follow changes (Server-Sent Events)',
          "Every change of the caller's sandbox, live, as `text/event-stream`: events `plant.created` (data: the plant) and `plant.deleted` (data: `{id}`), each with an `id:` cursor. Without a cursor the stream starts now (its first message is a bare `id:`); with `Last-Event-ID` or `after` it starts with every change after that cursor from the retained log. A cursor older than the log, unknown or malformed starts the stream with `event: feed.reset` and `data: {}` (re-read the list, then follow), never an error. A comment line every 15 s keeps it open; a client that stops reading is disconnected and resumes from its last id. Streams open at once are bounded per token and per server (`PLANT_STORE_FEED_STREAMS_PER_TOKEN`, `PLANT_STORE_FEED_STREAMS`): past either, 429 with `Retry-After`. Browsers' EventSource cannot send headers: the token may be given as `access_token` instead.",
          {
            '200': response('The stream; it ends when the client goes, the server shuts down, or the client stops reading.', rateLimitHeaders, {
              'text/event-stream': { schema: { type: 'string', description: 'Server-Sent Events: `retry:`, then `id:`/`event:`/`data:` messages and `:` comments.' } },
            }),
          },
          [],
        ),
        parameters: [
          { name: 'Last-Event-ID', in: 'header', required: false, description: 'The cursor to resume after (an EventSource sends it when it reconnects); before `after`.', schema: { type: 'string' } },
          { name: 'after', in: 'query', required: false, description: 'The cursor to start after.', schema: { type: 'string' } },
          { name: 'access_token', in: 'query', required: false, description: 'The bearer token, for clients that cannot send an Authorization header (a browser EventSource).', schema: { type: 'string' } },
        ],
      },
    },
  };
}
