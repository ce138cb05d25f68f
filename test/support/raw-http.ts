import { connect, type Socket } from 'node:net';
import { expectNothingLeaked, parseJson, type HttpResponse, type HttpTarget } from './http-client.js';
import { assertDocumented } from './openapi-conformance.js';

/**
 * HTTP written byte by byte on a bare socket, for what a client would refuse to send or
 * cannot time: a malformed head, a body without Content-Length (chunked), a declared length
 * never sent, a body sent slowly or in halves, pipelining, an interim `100 Continue`.
 * Every answer is read by the one parser below and gets HttpClient's checks: nothing
 * leaked, and each final answer as the OpenAPI document describes it.
 */

export interface RawResponse extends HttpResponse {
  /** Since the connection was opened. */
  readonly elapsedMs: number;
}

/** One TCP connection to the target's port: write what you like, read answers one by one. */
export class RawConnection {
  private received = Buffer.alloc(0);
  private ended = false;
  private readonly opened = performance.now();
  private wake: () => void = () => {};
  private readonly closedPromise: Promise<void>;

  private constructor(
    private readonly target: HttpTarget,
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
    // A reset after the server answered early is expected; a missing answer shows in nextResponse.
    socket.on('error', () => {});
  }

  static open(target: HttpTarget): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(new URL(target.url).port), '127.0.0.1', () => resolve(new RawConnection(target, socket)));
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
   * The next answer (interim ones included) to `request` (its method and target, e.g.
   * `POST /plants`), checked for leaks; final answers also against the OpenAPI document.
   * Rejects after `timeoutMs`, or when the server closes without (another) answer.
   */
  async nextResponse(request: string, timeoutMs = 5000): Promise<RawResponse> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const parsed = takeResponse(this.received, request.startsWith('HEAD '));
      if (parsed !== undefined) {
        this.received = this.received.subarray(parsed.length);
        const response = { ...parsed.response, request, elapsedMs: performance.now() - this.opened };
        expectNothingLeaked(response, this.target.tokens);
        if (response.status >= 200) {
          const [method, target] = request.split(' ');
          assertDocumented(this.target.openapi, { method: method!, path: target!, status: response.status, headers: response.headers, body: response.text });
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

  /** Resolves when the server has closed the connection, with the time since it opened; rejects after `timeoutMs`. */
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
}

/**
 * Sends `head` (request line and headers, without the blank line) and `body` on a new
 * connection; resolves with the first answer, then closes the connection.
 */
export async function rawExchange(target: HttpTarget, head: string, body: string | Buffer = '', timeoutMs = 5000): Promise<RawResponse> {
  const connection = await RawConnection.open(target);
  try {
    connection.write(`${head}\r\n\r\n`);
    if (body.length > 0) connection.write(typeof body === 'string' ? Buffer.from(body) : body);
    return await connection.nextResponse(head.split('\r\n')[0]!, timeoutMs);
  } finally {
    connection.destroy();
  }
}

/** POSTs `chunks` with Transfer-Encoding: chunked, one chunk each, so the server cannot know the size in advance. */
export function chunkedPost(target: HttpTarget, path: string, headers: Readonly<Record<string, string>>, chunks: readonly string[]): Promise<RawResponse> {
  const lines = [`POST ${target.basePath}${path} HTTP/1.1`, `Host: ${new URL(target.url).host}`, 'Transfer-Encoding: chunked'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const body = Buffer.concat([...chunks.map((chunk) => Buffer.from(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`)), Buffer.from('0\r\n\r\n')]);
  return rawExchange(target, lines.join('\r\n'), body);
}

/**
 * A complete answer at the front of `bytes` and how many bytes it takes, or undefined.
 * Bodies are framed by Content-Length; answers to HEAD, 1xx, 204 and 304 have none.
 */
function takeResponse(bytes: Buffer, toHead: boolean): { response: Omit<HttpResponse, 'request'>; length: number } | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
  const status = Number(statusLine!.split(' ')[1]);
  const bodiless = toHead || status < 200 || status === 204 || status === 304;
  const length = bodiless ? 0 : Number(headers.get('content-length') ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  const text = bytes.subarray(end + 4, end + 4 + length).toString('utf8');
  return { response: { status, headers, text, body: parseJson(text) }, length: end + 4 + length };
}
