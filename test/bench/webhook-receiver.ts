/**
 * The benchmark's webhook endpoint, as its own process (as a real receiver would be): answers
 * every POST 200 at once and notes when each plant's first delivery arrived. Run in the
 * benchmark process, its CPU would be taken from the load generator beside it.
 *
 * Times are process.hrtime in ms: the monotonic clock, the same in every process of the
 * machine, so the runner can compare them with its own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nowMs } from './child-protocol.js';

/** `arrivals` answers the plants whose first delivery arrived since the last ask. */
export type ToReceiver = { type: 'arrivals' };
export type FromReceiver = { type: 'ready'; port: number } | { type: 'arrivals'; ids: number[]; atMs: number[] };

const seen = new Set<number>();
let ids: number[] = [];
let atMs: number[] = [];

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const at = nowMs();
    const id = (JSON.parse(Buffer.concat(chunks).toString()) as { id: number }).id;
    if (!seen.has(id)) {
      seen.add(id);
      ids.push(id);
      atMs.push(at);
    }
    response.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;

process.on('message', (message: ToReceiver) => {
  if (message.type !== 'arrivals') return;
  process.send!({ type: 'arrivals', ids, atMs } satisfies FromReceiver);
  ids = [];
  atMs = [];
});
// The runner went away: do not linger holding a port.
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies FromReceiver));
