import { connect, type Socket } from 'node:net';
import { expectNothingLeaked, parseJson, type HttpResponse } from './http-client.js';
import type { HttpServer } from './http-server.js';
import { assertDocumented } from './openapi-conformance.js';

export interface RawResponse extends HttpResponse {
  /** Since the connection was opened. */
  readonly elapsedMs: number;
}

/**
 * One TCP connection driven byte by byte, for what rawExchange cannot do: sending slowly,
 * reading an interim `100 Continue` before the final answer, noticing the server close.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private ended = false;
  private readonly opened = performance.now();
  private wake: () => void = () => {};
  private readonly closedPromise: Promise<void>;

  private constructor(
    private readonly server: HttpServer,
    private readonly socket: Socket,
  ) {
    socket.on('data', (chunk) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    this.closedPromise = new Promise((resolve) => {
      socket.once('close', () => {
        this.ended = true;
        this.wake();
        resolve();
      });
    });
    socket.on('error', () => {});
  }

  static open(server: HttpServer): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => resolve(new RawConnection(server, socket)));
      socket.once('error', reject);
    });
  }

  /** latin1: each character is one byte on the wire, exactly as written. */
  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data, 'latin1');
  }

  /** Writes `data` one byte every `intervalMs` until done or the server closes; resolves then. */
  async trickle(data: string, intervalMs: number): Promise<void> {
    for (const byte of data) {
      if (this.ended) return;
      this.write(byte);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  /**
   * The next response (interim ones included), checked for leaks; final error answers are
   * also checked against the OpenAPI document. Rejects after `timeoutMs` or on close.
   */
  async nextResponse(request: string, timeoutMs = 5000): Promise<RawResponse> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const parsed = this.takeResponse(request.startsWith('HEAD '));
      if (parsed !== undefined) {
        const response = { ...parsed, request, elapsedMs: performance.now() - this.opened };
        expectNothingLeaked(response, this.server.tokens);
        if (response.status >= 200) {
          const [method, target] = request.split(' ');
          assertDocumented(this.server.openapi, { method: method!, path: target!, status: response.status, headers: response.headers, body: response.text });
        }
        return response;
      }
      if (this.ended) throw new Error(`${request}: the server closed the connection without (another) response`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`${request}: no response within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Resolves when the server has closed the connection; rejects after `timeoutMs`. */
  async closedWithin(timeoutMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the connection was still open after ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([this.closedPromise, timeout]).finally(() => clearTimeout(timer));
    return performance.now() - this.opened;
  }

  /** Bytes received and not yet taken as a response. */
  unread(): string {
    return this.received.toString('latin1');
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** A complete response at the front of what was received; HEAD, 1xx, 204 and 304 answers have no body. */
  private takeResponse(toHead: boolean): Omit<HttpResponse, 'request'> | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
    const status = Number(statusLine!.split(' ')[1]);
    const bodiless = toHead || status < 200 || status === 204 || status === 304;
    const length = bodiless ? 0 : Number(headers.get('content-length') ?? 0);
    if (this.received.length < end + 4 + length) return undefined;
    const text = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
    this.received = this.received.subarray(end + 4 + length);
    return { status, headers, text, body: parseJson(text) };
  }
}
