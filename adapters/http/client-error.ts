import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ErrorCode } from '../../core/index.js';
import { statusByErrorCode } from './error-statuses.js';

/**
 * Node's HTTP parser rejects some requests (a bad Content-Length, a malformed header
 * line) before Koa sees them, and would answer a bare 400. This answers them in the
 * contract's shape instead, then closes the connection: its framing can't be trusted.
 */
export function answerUnparsableRequest(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: ErrorCode.MalformedBody, message: 'the request is not valid HTTP/1.1' });
  socket.end(
    `HTTP/1.1 ${statusByErrorCode[ErrorCode.MalformedBody]} Bad Request\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n' +
      body,
  );
}
