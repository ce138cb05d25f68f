import type { Socket } from 'node:net';
import { ErrorCode } from '../../../core/index.js';
import { bareErrorAnswer, endSocketWith, type BareErrorAnswer } from '../errors/bare-error-answer.js';

/**
 * Node's HTTP parser rejects some requests before Koa sees them (bad framing, headers too
 * large, a request that takes too long) and would answer with an empty body. These are the
 * contract's answers, by Node's error code; anything unknown is a malformed request.
 */
export function parserErrorAnswer(nodeCode: string | undefined): BareErrorAnswer {
  switch (nodeCode) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return bareErrorAnswer(ErrorCode.RequestTimeout, 'the request did not arrive in time; the connection is closed');
    case 'HPE_HEADER_OVERFLOW':
      return bareErrorAnswer(ErrorCode.HeadersTooLarge, 'the request headers are too large or too many');
    default:
      return bareErrorAnswer(ErrorCode.MalformedBody, 'the request is not valid HTTP/1.1');
  }
}

/**
 * Answers a parser error on `socket`, then closes it. Nothing is written when the peer is
 * gone or when a response to the request in progress has already begun: a second status
 * line inside it would corrupt what the client reads.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, responseBegun: boolean): void {
  if (!socket.writable || responseBegun || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  endSocketWith(socket, parserErrorAnswer(error.code));
}
