import fc from 'fast-check';
import { brotliCompressSync, brotliDecompressSync, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';

/** One request as the fuzz suite sends it over a raw socket, with what the model needs. */
export interface FuzzRequest {
  readonly method: string;
  /** The request target: path and query, as bytes on the wire (latin1). */
  readonly target: string;
  readonly auth: 'valid' | 'none' | 'unknown' | 'garbage';
  readonly headers: readonly (readonly [string, string])[];
  /** The body before any Content-Encoding; undefined: no body and no Content-Length. */
  readonly body: Buffer | undefined;
  readonly encoding: 'identity' | 'gzip' | 'deflate' | 'br' | 'bogus' | 'none';
  readonly damage: 'none' | 'truncate' | 'flip';
  readonly chunked: boolean;
}

const charsOf = (text: string) => fc.constantFrom(...text.split(''));
const unreserved = 'ABCxyz0123456789-._~';
const textUnit = fc.oneof(
  { weight: 20, arbitrary: charsOf(`${unreserved}!$&'()*+,;=:@/?`) },
  { weight: 4, arbitrary: fc.constantFrom('%', '%2', '%00', '%2F', '%E2%82%AC', '%C3%28', '%FF', '%25', '..', '%2e%2e') },
  // Bytes a request target may not carry: the parser's 400.
  { weight: 1, arbitrary: charsOf('#[] "<>\\^`{|}\u00e9\u0001') },
);
const text = (maxLength: number) => fc.string({ unit: textUnit, maxLength });

/** Ids cluster in a small range so creates conflict and deletes hit. */
const smallId = fc.integer({ min: 1, max: 12 });
const idText = fc.oneof(
  smallId.map(String),
  fc.constantFrom('0', '-1', '01', '1.5', '1e3', '9007199254740991', '9007199254740992', '99999999999999999999', '0x10', ' 1', 'abc', ''),
  text(12),
);

const path = fc.oneof(
  { weight: 4, arbitrary: fc.constant('/plants') },
  { weight: 4, arbitrary: idText.map((id) => `/plants/${encodeURI(id)}`) },
  { weight: 1, arbitrary: fc.constantFrom('/plants/', '/healthz', '/readyz', '/openapi.json', '/docs', '/docs/nothing.js', '/PLANTS', '//plants', '/plants/1/2', '*') },
  { weight: 2, arbitrary: fc.array(text(10), { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`) },
);

const queryValue = fc.oneof(
  fc.integer({ min: -2, max: 1002 }).map(String),
  fc.constantFrom('', '0', '1000', '1001', '9007199254740991', '1e2', 'abc', '%', '%FF', ' 5'),
  text(10),
);
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'after', 'tag', 'limit[]', 'tag'), text(6)), queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`));

/** Request-target bytes: spaces would split the request line, so they travel as %20. */
const target = fc.tuple(path, query).map(([p, q]) => `${p}${q}`.replace(/[ \r\n]/g, '%20'));

const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE') },
  { weight: 3, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'PUT', 'PATCH', 'TRACE', 'PROPFIND', 'LOCK', 'MKCOL', 'SEARCH', 'PURGE', 'M-SEARCH', 'CONNECT', 'SUBSCRIBE') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z!#$%&'*+.^_`|~-]{1,12}$/) },
);

// Framing headers are set by the sender itself: fuzzing them would only leave the server
// waiting for bytes that never come, which is the slow-client tests' subject.
const headerName = fc.oneof(
  fc.constantFrom('Content-Type', 'Content-Encoding', 'Expect', 'Accept', 'Accept-Encoding', 'X-Request-Id', 'Origin', 'Range', 'If-None-Match', 'Authorization', 'Cookie', 'Upgrade', 'X-Forwarded-For'),
  fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/),
);
const headerValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'gzip', 'br', 'identity, gzip', '100-continue', 'foo', 'bytes=0-10', '*', 'http://evil.example', 'websocket') },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0x09, max: 0xff }).filter((c) => c !== 0x0a && c !== 0x0d).map((c) => String.fromCharCode(c)), maxLength: 40 }) },
);
const headers = fc.oneof(fc.constant([]), fc.array(fc.tuple(headerName, headerValue), { maxLength: 3 }));

const validPlant = fc.record(
  {
    id: fc.oneof(smallId, fc.constantFrom(0, -1, 1.5, 9007199254740991, 9007199254740992)),
    name: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('', ' ', 'x'.repeat(201), '__proto__')),
    tag: fc.option(fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)), { nil: undefined }),
    extra: fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }),
  },
  { requiredKeys: ['id', 'name'] },
);
const body = fc.oneof(
  { weight: 6, arbitrary: validPlant.map((plant) => Buffer.from(JSON.stringify(plant))) },
  { weight: 3, arbitrary: fc.json({ maxDepth: 2 }).map((json) => Buffer.from(json)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 20_000 }).map((size) => Buffer.from(`{"id":1,"name":"${'n'.repeat(size)}"}`)) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '"x"', '{"__proto__":{"id":1},"id":2,"name":"p"}', '\uFEFF{"id":3,"name":"bom"}').map((t) => Buffer.from(t)) },
);

const hostileRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method,
  target,
  auth: fc.constantFrom('valid', 'valid', 'valid', 'none', 'unknown', 'garbage'),
  headers,
  body: fc.option(body, { nil: undefined, freq: 4 }),
  encoding: fc.constantFrom('none', 'none', 'none', 'identity', 'gzip', 'deflate', 'br', 'bogus'),
  damage: fc.constantFrom('none', 'none', 'none', 'truncate', 'flip'),
  chunked: fc.boolean(),
});

/** Requests a well-behaved client sends, so that plants are created, found and deleted. */
const wellFormedRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.record({
    method: fc.constant('POST'),
    target: fc.constant('/plants'),
    auth: fc.constant('valid' as const),
    headers: fc.constant([]),
    // Mostly plants, sometimes any body: odd bodies then reach the JSON and plant checks.
    body: fc.oneof({ weight: 3, arbitrary: validPlant.map((plant) => Buffer.from(JSON.stringify(plant))) }, { weight: 1, arbitrary: body }),
    encoding: fc.constantFrom('none' as const, 'gzip' as const, 'br' as const),
    damage: fc.constant('none' as const),
    chunked: fc.boolean(),
  }),
  fc.record({
    method: fc.constantFrom('GET', 'DELETE', 'HEAD'),
    target: smallId.map((id) => `/plants/${id}`),
    auth: fc.constant('valid' as const),
    headers: fc.constant([]),
    body: fc.constant(undefined),
    encoding: fc.constant('none' as const),
    damage: fc.constant('none' as const),
    chunked: fc.constant(false),
  }),
);

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof({ weight: 3, arbitrary: hostileRequest }, { weight: 2, arbitrary: wellFormedRequest });

const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

/** The bytes on the wire: head and body, with Content-Length or chunked framing. */
export function wireBytes(request: FuzzRequest, token: string): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, 'Host: fuzz.test'];
  if (request.auth === 'valid') lines.push(`Authorization: Bearer ${token}`);
  if (request.auth === 'unknown') lines.push('Authorization: Bearer fuzz-unknown-token-0123456789');
  if (request.auth === 'garbage') lines.push('Authorization: Basic ???');
  if (request.body !== undefined && !request.headers.some(([name]) => name === 'Content-Type')) lines.push('Content-Type: application/json');
  const payload = encodedBody(request);
  if (payload !== undefined && request.encoding !== 'none') lines.push(`Content-Encoding: ${request.encoding}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  lines.push('Connection: close');
  if (payload === undefined) return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (!request.chunked) {
    lines.push(`Content-Length: ${payload.length}`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  }
  lines.push('Transfer-Encoding: chunked');
  const half = Math.floor(payload.length / 2);
  const chunks = [payload.subarray(0, half), payload.subarray(half)].filter((chunk) => chunk.length > 0);
  const framed = chunks.flatMap((chunk) => [Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), ...framed, Buffer.from('0\r\n\r\n')]);
}

const decoders = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync };

/** The body bytes as sent: encoded, then damaged as the request says (only real encodings). */
export function encodedBody(request: FuzzRequest): Buffer | undefined {
  let payload = request.body;
  if (payload === undefined || !(request.encoding in encoders)) return payload;
  payload = encoders[request.encoding as keyof typeof encoders](payload);
  if (request.damage === 'truncate') payload = payload.subarray(0, Math.floor(payload.length / 2));
  if (request.damage === 'flip' && payload.length > 0) {
    payload = Buffer.from(payload);
    const at = Math.floor(payload.length / 2);
    payload[at] = payload[at]! ^ 0x55;
  }
  return payload;
}

/**
 * What a correct decoder makes of the sent body (brotli has no checksum, so a damaged body
 * can still decode, to something else); undefined when it cannot be decoded.
 */
export function decodedBody(request: FuzzRequest): Buffer | undefined {
  const payload = encodedBody(request);
  if (payload === undefined || !(request.encoding in decoders)) return payload;
  try {
    return decoders[request.encoding as keyof typeof decoders](payload);
  } catch {
    return undefined;
  }
}
