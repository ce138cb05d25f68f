import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { expectNothingLeaked, parseJson, type HttpResponse } from './http-client.js';
import { assertDocumented } from './openapi-conformance.js';
import type { HttpServer } from './http-server.js';

/**
 * For requests fetch cannot express: a body without Content-Length (chunked), a declared
 * length that is never sent, a POST with no body at all. Responses get the same leak checks.
 */

/** Sends `head` (request line and headers, without the blank line) and `body` over a bare socket; resolves with the first response. */
export function rawExchange(server: HttpServer, head: string, body: string | Buffer = '', timeoutMs = 5000): Promise<HttpResponse & { elapsedMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`no response within ${timeoutMs} ms`))), timeoutMs);
    socket.on('error', (error) => finish(() => reject(error)));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received);
      if (parsed === undefined) return;
      finish(() => {
        const response = { ...parsed, request: head.split('\r\n')[0]!, elapsedMs: performance.now() - started };
        try {
          expectNothingLeaked(response, server.tokens);
          const [method, target] = response.request.split(' ');
          assertDocumented(server.openapi, { method: method!, path: target!, status: response.status, headers: response.headers, body: response.text });
          resolve(response);
        } catch (error) {
          reject(error);
        }
      });
    });
    // latin1: each character of the head is one byte on the wire, exactly as written.
    socket.write(`${head}\r\n\r\n`, 'latin1');
    if (body.length > 0) socket.write(body);
  });
}

/** A complete response in `bytes` (status line, headers, Content-Length body), or undefined. */
function parseResponse(bytes: Buffer): Omit<HttpResponse, 'request'> | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
  const length = Number(headers.get('content-length') ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  const text = bytes.subarray(end + 4, end + 4 + length).toString('utf8');
  return { status: Number(statusLine!.split(' ')[1]), headers, text, body: parseJson(text) };
}

/** POSTs `chunks` with Transfer-Encoding: chunked, so the server cannot know the size in advance. */
export function chunkedPost(server: HttpServer, path: string, headers: Record<string, string>, chunks: readonly string[]): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'POST', path: `${server.basePath}${path}`, headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const response: HttpResponse = {
          request: `POST ${path} (chunked)`,
          status: res.statusCode!,
          headers: new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)] as [string, string])),
          text,
          body: parseJson(text),
        };
        req.destroy();
        try {
          expectNothingLeaked(response, server.tokens);
          assertDocumented(server.openapi, { method: 'POST', path: `${server.basePath}${path}`, status: response.status, headers: response.headers, body: text });
          resolve(response);
        } catch (error) {
          reject(error);
        }
      });
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
