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
  /** Requests parsed but held back, oldest first. */
  readonly waiting: (() => void)[];
}

/**
 * Bounds the work and memory one connection can claim. Node parses every request a client
 * pipelines into a read and hands each to the application at once; a client that never
 * reads its responses would make the server build and keep all of them. Here at most
 * `limit` requests per connection are in the application; later ones wait (a parsed
 * request costs little; a built response can be large) and the connection stops being read
 * until they are served. Responses still leave in request order: Node queues them by
 * request, whenever each is ready.
 */
export function limitPipelining(handle: RequestListener, limit: number): RequestListener {
  const connections = new WeakMap<Socket, Connection>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as HttpSocket;
    let connection = connections.get(socket);
    if (connection === undefined) {
      const created: Connection = { active: 0, waiting: [] };
      connection = created;
      connections.set(socket, created);
      // Requests never started are never answered: nobody can read them any more.
      socket.once('close', () => (created.waiting.length = 0));
    }
    const state = connection;
    const run = () => {
      state.active++;
      let done = false;
      res.once('close', () => {
        if (done) return;
        done = true;
        state.active--;
        const next = state.waiting.shift();
        if (next !== undefined) next();
        else resumeReading(socket);
      });
      handle(req, res);
    };
    if (state.active < limit && state.waiting.length === 0) {
      run();
      return;
    }
    state.waiting.push(run);
    stopReading(socket);
  };
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
