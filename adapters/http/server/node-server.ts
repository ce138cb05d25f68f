import { createServer, ServerResponse, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode, type TokenVerdict, type TokenVerifier } from '../../../core/index.js';
import { bareErrorAnswer, endResponseWith } from '../errors/bare-error-answer.js';
import { bearerVerdict } from '../guards/bearer-auth.js';
import { answerClientError } from './client-error.js';
import { headerLinesProblem } from './header-lines.js';
import { limitPipelining } from './pipeline-limit.js';

export interface NodeServerOptions {
  /** Longest time a client may take to send a request's headers. */
  readonly headersTimeoutMs: number;
  /** Longest time a client may take to send a whole request, body included. */
  readonly requestTimeoutMs: number;
  /** The verifier the routes use: decides whether `Expect: 100-continue` gets its 100. */
  readonly tokenVerifier: TokenVerifier;
  /** Requests of one connection in the application at once (default 8); see limitPipelining. */
  readonly pipelineLimit?: number;
}

export const DEFAULT_PIPELINE_LIMIT = 8;

const LAST_RESPONSE = Symbol('plant-store.lastResponse');
type SocketWithLast = Socket & { [LAST_RESPONSE]?: ServerResponse };

/**
 * The node:http server around an application callback, hardened against hostile clients:
 * deliberate time limits, every parser-level error answered in the contract's JSON shape,
 * no `100 Continue` before the token is checked, CONNECT answered like any other method,
 * and bounded work per connection for clients that pipeline without reading.
 */
export function createNodeServer(handle: RequestListener, options: NodeServerOptions): Server {
  if (options.headersTimeoutMs > options.requestTimeoutMs) {
    throw new RangeError(`the headers timeout (${options.headersTimeoutMs} ms) must not exceed the request timeout (${options.requestTimeoutMs} ms)`);
  }
  const expectsContinue = new WeakSet<IncomingMessage>();
  // The last request each connection received (its response, which names it): a timeout
  // while its body is still arriving comes after its response may have been sent, and must
  // then not be answered again. Kept on the socket: no map entry or object per request.
  const lastResponse = (socket: Socket) => (socket as SocketWithLast)[LAST_RESPONSE];
  const limited = limitPipelining((req, res) => {
    if (!expectsContinue.has(req)) return handle(req, res);
    // Invited only now, when the application is about to read the body, and only with a
    // token the routes would accept; anyone else gets the route's answer (401, 404 …) at once.
    const invite = (verdict: TokenVerdict) => {
      if (typeof verdict === 'object') res.writeContinue();
      handle(req, res);
    };
    const verdict = bearerVerdict(req.headers.authorization, options.tokenVerifier);
    if (verdict instanceof Promise) verdict.then(invite, () => handle(req, res));
    else invite(verdict);
  }, options.pipelineLimit ?? DEFAULT_PIPELINE_LIMIT);

  const onRequest: RequestListener = (req, res) => {
    (req.socket as SocketWithLast)[LAST_RESPONSE] = res;
    const headerProblem = headerLinesProblem(req);
    if (headerProblem !== undefined) {
      endResponseWith(res, bareErrorAnswer(ErrorCode.MalformedBody, headerProblem));
      return;
    }
    limited(req, res);
  };

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      // Node checks the two timeouts only this often (30 s by default), which would let a
      // slow client outlive them by that much.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(options.headersTimeoutMs / 10))),
      // Node would answer a missing Host with an empty 400; onRequest answers it in JSON.
      requireHostHeader: false,
    },
    onRequest,
  );
  const onClientError = (error: Error & { code?: string }, socket: Socket) => {
    // Begun: the request still arriving was already answered, or Node is writing some
    // response on this socket right now (`_httpMessage`, as Node's own handler checks).
    const last = lastResponse(socket);
    const begun = last !== undefined && !last.req.complete && (last.headersSent || last.writableEnded);
    answerClientError(error, socket, begun || (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true);
  };
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    // Requests that arrived whole before the bad bytes (pipelined in the same packet) may
    // have done their work, a create stored: their answers go first, in order, then the
    // error. Written at once, it would take the place of theirs on the wire.
    const last = lastResponse(socket);
    if (last !== undefined && last.req.complete && !last.writableFinished && socket.writable && error.code !== 'ECONNRESET') {
      const answerAfter = () => {
        last.off('close', answerAfter);
        last.off('finish', answerAfter);
        if (socket.writable) onClientError(error, socket);
        else socket.destroy();
      };
      last.once('finish', answerAfter);
      last.once('close', answerAfter);
      return;
    }
    onClientError(error, socket);
  });
  // With no headers or request timeout at all (embedded use may set both to 0), nothing would bound a begun request: closed, as Node does.
  const requestsBounded = options.headersTimeoutMs > 0 || options.requestTimeoutMs > 0;
  server.on('timeout', (socket: Socket) => closeUnlessRequestBegun(socket, requestsBounded));
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    expectsContinue.add(req);
    onRequest(req, res);
  });
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    endResponseWith(res, bareErrorAnswer(ErrorCode.ExpectationFailed, 'the Expect header cannot be met; only 100-continue is understood'));
  });
  server.on('connect', (req: IncomingMessage, socket: Socket) => answerConnect(req, socket, onRequest));
  return server;
}

/** What Node's HTTP parser tells of the message it is reading (present in every release we run on; checked anyway). */
type ParserState = { headersCompleted?: () => boolean };

/**
 * The keep-alive timeout (Node's 5 s, and a second it adds) of a connection between
 * requests. Node closes the connection then, even when the next request's headers have
 * begun to arrive: a slow second request was cut off silently, where on a new connection it
 * gets 408 at the headers timeout. Begun, it is left to that timeout, counted from its first
 * byte (Node's check of it answers 408 through clientError); idle, or already answered and
 * ended by us (`writable` false), it is closed, as Node would.
 */
function closeUnlessRequestBegun(socket: Socket, requestsBounded: boolean): void {
  const parser = (socket as Socket & { parser?: ParserState | null }).parser;
  if (requestsBounded && socket.writable && typeof parser?.headersCompleted === 'function' && !parser.headersCompleted()) return;
  socket.destroy();
}

/**
 * Node hands a CONNECT request over as a bare socket (for proxies) and closes it when
 * nobody listens. This is no proxy: the request gets a normal response from the
 * application (404 for a host:port target, 405 on a known path), then the socket closes.
 */
function answerConnect(req: IncomingMessage, socket: Socket, onRequest: RequestListener): void {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    res.detachSocket(socket);
    socket.end();
  });
  socket.once('error', () => socket.destroy());
  onRequest(req, res);
}
