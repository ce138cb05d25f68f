import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../../../core/index.js';
import { statusByErrorCode } from './error-statuses.js';

/**
 * An error answered outside Koa (parser errors, a missing Host, an unmet Expect): the same
 * status table, JSON shape and fixed headers as every other error, and `Connection: close`,
 * because the connection's framing or state can no longer be trusted.
 */
export interface BareErrorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export function bareErrorAnswer(code: ErrorCode, message: string): BareErrorAnswer {
  const body = JSON.stringify({ error: code, message });
  return {
    status: statusByErrorCode[code],
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': randomUUID(),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      Connection: 'close',
    },
    body,
  };
}

/** Writes the answer as raw bytes and closes: for sockets no ServerResponse owns. */
export function endSocketWith(socket: Socket, answer: BareErrorAnswer): void {
  const head = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n${head}\r\n${answer.body}`);
  // Node's server keeps a connection half open until the client closes its side, which a
  // hostile client never does: the client has had time to read the answer by then.
  const linger = setTimeout(() => socket.destroy(), LINGER_AFTER_ANSWER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

/** How long a connection ended after a parser error may stay half open. */
export const LINGER_AFTER_ANSWER_MS = 2000;

/** Sends the answer through Node's own response, which then closes the connection. */
export function endResponseWith(res: ServerResponse, answer: BareErrorAnswer): void {
  res.shouldKeepAlive = false;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
