import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Node's own flag for "this connection stopped reading because its output backs up": while
 * it is set, Node does not resume the socket when a request finishes, and it resumes it
 * (clearing the flag) once the client has read what was written. Using the same flag keeps
 * the two mechanisms from undoing each other.
 */
type HttpSocket = Socket & { _paused?: boolean; parser?: { pause(): void; resume(): void } | null };

interface Connection {
  readonly socket: HttpSocket;
  readonly handle: RequestListener;
  readonly limit: number;
  /** Requests handed to the application whose response has not closed yet. */
  active: number;
  /** Whether one of them may change something (not GET, HEAD, OPTIONS or TRACE). */
  unsafeActive: boolean;
  /** Requests parsed but held back, oldest first. */
  readonly waiting: Request[];
}

/** One request of a connection; its response carries it until it closes. */
interface Request {
  readonly connection: Connection;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly unsafe: boolean;
  closed: boolean;
}

// Kept on the socket and on the response: no map lookup, and no closure per request.
const CONNECTION = Symbol('pipelined connection');
const REQUEST = Symbol('pipelined request');
type WithConnection = HttpSocket & { [CONNECTION]?: Connection };
type WithRequest = ServerResponse & { [REQUEST]?: Request };

/**
 * Bounds the work and memory one connection can claim. Node parses every request a client
 * pipelines into a read and hands each to the application at once; a client that never
 * reads its responses would make the server build and keep all of them. Here at most
 * `limit` requests per connection are in the application; later ones wait (a parsed
 * request costs little; a built response can be large) and the connection stops being read
 * until they are served. Responses still leave in request order: Node queues them by
 * request, whenever each is ready.
 *
 * Only safe requests run side by side (RFC 9112 §9.3.2): a request that may change
 * something waits for those before it, and the ones after it wait for it, so a pipelined
 * GET sees the POST sent before it.
 */
export function limitPipelining(handle: RequestListener, limit: number): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as WithConnection;
    let connection = socket[CONNECTION];
    if (connection === undefined) {
      const created: Connection = { socket, handle, limit, active: 0, unsafeActive: false, waiting: [] };
      connection = socket[CONNECTION] = created;
      // Requests never started are never answered: nobody can read them any more.
      socket.once('close', () => (created.waiting.length = 0));
    }
    const request: Request = { connection, req, res, unsafe: !safeMethods.has(req.method ?? ''), closed: false };
    if (connection.waiting.length === 0 && mayStart(request)) {
      start(request);
      return;
    }
    connection.waiting.push(request);
    stopReading(socket);
  };
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

function mayStart({ connection, unsafe }: Request): boolean {
  return connection.active === 0 || (connection.active < connection.limit && !unsafe && !connection.unsafeActive);
}

function start(request: Request): void {
  const { connection } = request;
  connection.active++;
  connection.unsafeActive ||= request.unsafe;
  (request.res as WithRequest)[REQUEST] = request;
  request.res.on('close', responseClosed);
  connection.handle(request.req, request.res);
}

function responseClosed(this: WithRequest): void {
  const request = this[REQUEST]!;
  if (request.closed) return;
  request.closed = true;
  const { connection } = request;
  connection.active--;
  if (request.unsafe) connection.unsafeActive = false;
  startWaiting(connection);
  if (connection.waiting.length === 0) resumeReading(connection.socket);
}

/** Starts waiting requests in order, as far as the limit and the safety rule allow. */
function startWaiting(connection: Connection): void {
  while (connection.waiting.length > 0 && mayStart(connection.waiting[0]!)) start(connection.waiting.shift()!);
}

function stopReading(socket: HttpSocket): void {
  // Node pauses the parser too, after the read it is parsing, when it sees this flag.
  socket._paused = true;
  socket.pause();
}

function resumeReading(socket: HttpSocket): void {
  if (!socket._paused || socket.destroyed) return;
  socket._paused = false;
  socket.parser?.resume();
  socket.resume();
}
