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
  /** Requests handed to the application whose response has not closed yet. */
  active: number;
  /** Whether one of them may change something (not GET, HEAD, OPTIONS or TRACE). */
  unsafeActive: boolean;
  /** Requests parsed but held back, oldest first. */
  readonly waiting: HeldRequest[];
}

/** One request of a connection; its response carries it until it closes. */
interface HeldRequest {
  readonly connection: Connection;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly unsafe: boolean;
  closed: boolean;
}

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
  const limiter = new PipelineLimiter(handle, limit);
  return (req, res) => limiter.arrived(req, res);
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Its state is kept on the socket and on each response, under keys of its own: no map
 * lookup and no closure per request.
 */
class PipelineLimiter {
  private readonly connectionKey = Symbol('pipelined connection');
  private readonly requestKey = Symbol('pipelined request');
  /** The one 'close' listener of every response this limiter started. */
  private readonly responseClosed: (this: ServerResponse) => void;

  constructor(
    private readonly handle: RequestListener,
    private readonly limit: number,
  ) {
    const limiter = this;
    this.responseClosed = function () {
      limiter.finished((this as unknown as Record<symbol, HeldRequest>)[limiter.requestKey]!);
    };
  }

  arrived(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as HttpSocket & Record<symbol, Connection | undefined>;
    let connection = socket[this.connectionKey];
    if (connection === undefined) {
      const created: Connection = { socket, active: 0, unsafeActive: false, waiting: [] };
      connection = socket[this.connectionKey] = created;
      // Requests never started are never answered: nobody can read them any more.
      socket.once('close', () => (created.waiting.length = 0));
    }
    const request: HeldRequest = { connection, req, res, unsafe: !safeMethods.has(req.method ?? ''), closed: false };
    if (connection.waiting.length === 0 && this.mayStart(request)) {
      this.start(request);
      return;
    }
    connection.waiting.push(request);
    stopReading(socket);
  }

  private mayStart({ connection, unsafe }: HeldRequest): boolean {
    return connection.active === 0 || (connection.active < this.limit && !unsafe && !connection.unsafeActive);
  }

  private start(request: HeldRequest): void {
    const { connection } = request;
    connection.active++;
    connection.unsafeActive ||= request.unsafe;
    (request.res as unknown as Record<symbol, HeldRequest>)[this.requestKey] = request;
    request.res.on('close', this.responseClosed);
    this.handle(request.req, request.res);
  }

  private finished(request: HeldRequest): void {
    if (request.closed) return;
    request.closed = true;
    const { connection } = request;
    connection.active--;
    if (request.unsafe) connection.unsafeActive = false;
    // A response also closes when its client goes away (before the socket's own 'close'):
    // then nobody can read the answers of the waiting requests, so none is started.
    if (connection.socket.destroyed) connection.waiting.length = 0;
    this.startWaiting(connection);
    if (connection.waiting.length === 0) resumeReading(connection.socket);
  }

  /** Starts waiting requests in order, as far as the limit and the safety rule allow. */
  private startWaiting(connection: Connection): void {
    while (connection.waiting.length > 0 && this.mayStart(connection.waiting[0]!)) this.start(connection.waiting.shift()!);
  }
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
