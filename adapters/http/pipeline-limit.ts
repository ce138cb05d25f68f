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
  /** Requests handed to the application whose response has not closed yet. */
  active: number;
  /** Whether one of them may change something (not GET, HEAD, OPTIONS or TRACE). */
  unsafeActive: boolean;
  /** Requests parsed but held back, oldest first. */
  readonly waiting: { mayStart(): boolean; start(): void }[];
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
  const connections = new WeakMap<Socket, Connection>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as HttpSocket;
    let connection = connections.get(socket);
    if (connection === undefined) {
      const created: Connection = { active: 0, unsafeActive: false, waiting: [] };
      connection = created;
      connections.set(socket, created);
      // Requests never started are never answered: nobody can read them any more.
      socket.once('close', () => (created.waiting.length = 0));
    }
    const state = connection;
    const unsafe = !safeMethods.has(req.method ?? '');
    const mayStart = () => state.active === 0 || (state.active < limit && !unsafe && !state.unsafeActive);
    const start = () => {
      state.active++;
      state.unsafeActive ||= unsafe;
      let done = false;
      res.once('close', () => {
        if (done) return;
        done = true;
        state.active--;
        if (unsafe) state.unsafeActive = false;
        startWaiting(state);
        if (state.waiting.length === 0) resumeReading(socket);
      });
      handle(req, res);
    };
    if (state.waiting.length === 0 && mayStart()) {
      start();
      return;
    }
    state.waiting.push({ mayStart, start });
    stopReading(socket);
  };
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Starts waiting requests in order, as far as the limit and the safety rule allow. */
function startWaiting(state: Connection): void {
  while (state.waiting.length > 0 && state.waiting[0]!.mayStart()) state.waiting.shift()!.start();
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
