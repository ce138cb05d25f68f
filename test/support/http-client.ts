import { expect } from 'chai';
import { assertDocumented } from './openapi-conformance.js';

/** A response as the tests read it, whichever client produced it. */
export interface HttpResponse {
  /** e.g. `POST /plants`, for assertion messages. */
  readonly request: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  readonly body: any;
  /** From sending the request to the whole body read (HttpClient's requests). */
  readonly elapsedMs?: number;
}

export interface RequestOptions {
  /** Token for `Authorization: Bearer <token>`; default the server's first; null: no header. */
  readonly token?: string | null;
  /** A whole Authorization header value, sent instead of `Bearer <token>`. */
  readonly authorization?: string;
  /** Serialised with JSON.stringify and sent as application/json. */
  readonly json?: unknown;
  /** Sent byte for byte (as application/json unless contentType says otherwise). */
  readonly raw?: string | Uint8Array;
  /** Content-Type of a body; null sends none. */
  readonly contentType?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  /** This request is meant to provoke a 500. */
  readonly expectServerError?: boolean;
}

/** What the client needs of a server: where it is and which secrets it must never echo. */
export interface HttpTarget {
  readonly url: string;
  readonly basePath: string;
  readonly token: string;
  readonly tokens: readonly string[];
  /** The OpenAPI document the server serves: every response is checked against it. */
  readonly openapi: Record<string, unknown>;
}

/**
 * Calls the server with Node's global fetch. Paths starting with `/` are under the base
 * path; absolute URLs (e.g. resolved Link targets) are used as they are. Every response is
 * read whole and checked for leaks before the test sees it.
 */
export class HttpClient {
  /** Also what raw-http.ts needs to reach the same server with the same checks. */
  constructor(readonly target: HttpTarget) {}

  /** A client of the same server sending `token` (a sandbox's, say), which it also watches for leaks. */
  withToken(token: string): HttpClient {
    return new HttpClient({ ...this.target, token, tokens: [...this.target.tokens, token] });
  }

  /**
   * A client of a server started outside the fixture (its own process, or startServer),
   * with the document it serves. `tokens`: the server's tokens, the first one sent by
   * default; all are watched for leaks.
   */
  static async connect(url: string, tokens: string | readonly string[], basePath = ''): Promise<HttpClient> {
    const origin = new URL(url).origin;
    const openapi = (await (await fetch(`${origin}/openapi.json`)).json()) as Record<string, unknown>;
    const all = typeof tokens === 'string' ? [tokens] : [...tokens];
    return new HttpClient({ url: origin, basePath, token: all[0]!, tokens: all, openapi });
  }

  /** POST /plants of `{ id, name }`. */
  create(id: number, name = `plant ${id}`, options?: RequestOptions): Promise<HttpResponse> {
    return this.post('/plants', { ...options, json: { id, name } });
  }

  /** Every id in the store, following Link headers page by page. */
  async allIds(): Promise<number[]> {
    const ids: number[] = [];
    let path: string | undefined = '/plants?limit=1000';
    while (path !== undefined) {
      const response = await this.get(path);
      if (response.status !== 200) throw new Error(`listing failed with ${response.status}`);
      ids.push(...(response.body as { id: number }[]).map((plant) => plant.id));
      const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
      path = next === undefined ? undefined : new URL(next, this.target.url).href;
    }
    return ids;
  }

  get(path: string, options?: RequestOptions): Promise<HttpResponse> {
    return this.request('GET', path, options);
  }
  head(path: string, options?: RequestOptions): Promise<HttpResponse> {
    return this.request('HEAD', path, options);
  }
  post(path: string, options?: RequestOptions): Promise<HttpResponse> {
    return this.request('POST', path, options);
  }
  delete(path: string, options?: RequestOptions): Promise<HttpResponse> {
    return this.request('DELETE', path, options);
  }

  /** A path from the server's root, outside any base path (e.g. `/healthz`). */
  root(path: string): string {
    return new URL(path, this.target.url).href;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const url = /^https?:/.test(path) ? path : `${this.target.url}${this.target.basePath}${path}`;
    const headers = new Headers(options.headers);
    const token = options.token === undefined ? this.target.token : options.token;
    if (options.authorization !== undefined) headers.set('Authorization', options.authorization);
    else if (token !== null) headers.set('Authorization', `Bearer ${token}`);
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.raw !== undefined) body = options.raw;
    if (body !== undefined) {
      const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
      // fetch labels a string body text/plain when no type is given; bytes go unlabelled.
      if (contentType === null) body = typeof body === 'string' ? new TextEncoder().encode(body) : body;
      else if (!headers.has('Content-Type')) headers.set('Content-Type', contentType);
    }
    const started = performance.now();
    const res = await fetch(url, { method, headers, body: (body ?? null) as BodyInit | null });
    const text = await res.text();
    const elapsedMs = performance.now() - started;
    const response: HttpResponse = {
      request: `${method} ${new URL(url).pathname}${new URL(url).search}`,
      status: res.status,
      headers: res.headers,
      text,
      body: parseJson(text),
      elapsedMs,
    };
    expectNothingLeaked(response, [...this.target.tokens, ...presentedCredential(headers.get('Authorization'))], options);
    // Doc and behaviour cannot drift apart: whatever the suite provokes must be documented.
    assertDocumented(this.target.openapi, { method, path: url, status: res.status, headers: res.headers, body: text });
    return response;
  }
}

export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The credential part of an Authorization header we sent, when long enough to search for. */
function presentedCredential(header: string | null): string[] {
  const credential = header?.split(' ').slice(1).join(' ').trim() ?? '';
  return credential.length >= 12 ? [credential] : [];
}

// Signs of internals: a stack frame, an error's "Name: message" line, a source or module path.
const internals = [/\bat \S+ \(/, /\bat (?:file:|node:|\/)/, /Error:/, /\.(?:[cm]?js|ts):\d+/, /node_modules/, /file:\/\//, /\/(?:home|usr|srv|tmp|var)\//];

/**
 * Checked on every response of this suite: no 500 unless provoked on purpose, no token
 * (configured or presented) in the body or any header, nothing internal in the body.
 */
export function expectNothingLeaked(response: HttpResponse, secrets: readonly string[], options: { expectServerError?: boolean } = {}): void {
  if (!options.expectServerError) {
    expect(response.status, `${response.request} must not fail with 500: ${response.text}`).to.not.equal(500);
  }
  const headerText = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  for (const secret of secrets) {
    expect(response.text.includes(secret), `${response.request}: a token appears in the body`).to.equal(false);
    expect(headerText.includes(secret), `${response.request}: a token appears in a header`).to.equal(false);
  }
  for (const pattern of internals) {
    expect(response.text, `${response.request}: the body shows internals`).to.not.match(pattern);
  }
}
