import { AssertionError } from 'node:assert';
import { schemasOf } from './openapi-json-schemas.js';
import { connectionLevelResponses, NonOperationResponse } from '../../adapters/http/openapi/openapi-route-responses.js';

type Obj = Record<string, any>;

/** One response as a client saw it. */
export interface ObservedResponse {
  readonly method: string;
  /** The request path (query ignored), or a full URL. */
  readonly path: string;
  readonly status: number;
  readonly headers: Headers | Record<string, string | string[] | undefined>;
  /** The raw body text; a non-string is taken as already-parsed JSON; '' or undefined: no body. */
  readonly body?: unknown;
}

/**
 * Headers HTTP itself or CORS (the Fetch standard) define for every response; anything
 * else the server sends has to be in the document. Content-Type is checked on its own.
 */
const transportHeaders = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'vary']);
const isTransportHeader = (name: string) => transportHeaders.has(name) || name.startsWith('access-control-');

/**
 * Every way `observed` is not what `document` describes; empty when it conforms. Answers
 * of the router itself (unknown path, other method, OPTIONS, unparsable request) must
 * match their `components.responses` (NonOperationResponse).
 */
export function documentationProblems(document: Obj, observed: ObservedResponse): string[] {
  const method = observed.method.toLowerCase();
  // A request target is taken as the server reads it (`//x` is a path, not a host).
  const path = /^https?:\/\//i.test(observed.path) ? new URL(observed.path).pathname : observed.path.split(/[?#]/)[0]!;
  const what = `${observed.method.toUpperCase()} ${path} → ${observed.status}`;
  const headers = normalizeHeaders(observed.headers);
  // A request rejected before routing (parser error, timeout, Expect, header size) is
  // answered on any path, outside every operation, and the connection closed.
  const connectionLevel = connectionLevelResponses[observed.status];
  if (connectionLevel !== undefined && headers.get('connection') === 'close') {
    const answer = component(document, connectionLevel);
    if (typeof answer !== 'string' && responseProblems(document, answer, headers, observed.body, method).length === 0) return [];
  }
  const found = findResponse(document, method, path, observed.status);
  if (typeof found === 'string') return [`${what}: ${found}`];
  const problems = responseProblems(document, found, headers, observed.body, method);
  return problems.map((problem) => `${what} (${found.where}): ${problem}`);
}

function responseProblems(document: Obj, found: Found, headers: Map<string, string>, body: unknown, method: string): string[] {
  return [...headerProblems(document, found.response, headers), ...bodyProblems(document, found.response, headers, body, method)];
}

/** Throws an AssertionError listing every difference between `observed` and `document`. */
export function assertDocumented(document: Obj, observed: ObservedResponse): void {
  const problems = documentationProblems(document, observed);
  if (problems.length > 0) throw new AssertionError({ message: `response differs from the OpenAPI document:\n  ${problems.join('\n  ')}` });
}

interface Found {
  readonly response: Obj;
  readonly where: string;
}

function findResponse(document: Obj, method: string, path: string, status: number): Found | string {
  if (method === 'options' && status === 204) return component(document, NonOperationResponse.CorsPreflight);
  const item = matchPath(document, path);
  if (item === undefined) {
    return status === 404 ? component(document, NonOperationResponse.NoSuchRoute) : `no documented path matches, and only 404 is documented for unknown paths`;
  }
  const operation = item.value[method] ?? (method === 'head' ? item.value['get'] : undefined);
  if (operation === undefined) {
    if (method === 'options') return component(document, NonOperationResponse.AllowedMethods);
    return status === 405 ? component(document, NonOperationResponse.MethodNotAllowed) : `${method.toUpperCase()} is not documented on ${item.template}, so only 405 may answer`;
  }
  const responses: Obj = operation.responses ?? {};
  const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'];
  if (response === undefined) return `status ${status} is not documented for ${method.toUpperCase()} ${item.template} (documented: ${Object.keys(responses).join(', ')})`;
  return { response: resolve(document, response), where: `${method.toUpperCase()} ${item.template}` };
}

function component(document: Obj, name: string): Found | string {
  const response = document.components?.responses?.[name];
  return response === undefined ? `components.responses.${name} is missing` : { response: resolve(document, response), where: `components.responses.${name}` };
}

/** The path item whose template matches; fixed segments win over parameters, as OpenAPI says. */
function matchPath(document: Obj, path: string): { template: string; value: Obj } | undefined {
  const serverUrl: string = document.servers?.[0]?.url ?? '/';
  const prefix = serverUrl.startsWith('/') ? serverUrl.replace(/\/$/, '') : new URL(serverUrl).pathname.replace(/\/$/, '');
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  const templates = Object.keys(document.paths ?? {}).sort((a, b) => a.split('{').length - b.split('{').length);
  // The router treats a trailing slash as absent (`/plants/` is `/plants`).
  const template = templates.find((t) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`).test(rest));
  return template === undefined ? undefined : { template, value: document.paths[template] };
}

function resolve(document: Obj, value: Obj): Obj {
  let current = value;
  for (let hops = 0; typeof current?.['$ref'] === 'string' && hops < 10; hops++) {
    const ref: string = current['$ref'];
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported, got ${ref}`);
    current = ref.slice(2).split('/').reduce((node: Obj, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    if (current === undefined) throw new Error(`dangling reference ${ref}`);
  }
  return current;
}

function normalizeHeaders(headers: ObservedResponse['headers']): Map<string, string> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return new Map(
    entries.filter(([, value]) => value !== undefined).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value)]),
  );
}

function headerProblems(document: Obj, response: Obj, headers: Map<string, string>): string[] {
  const documented = new Map(Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), { name, header: resolve(document, header as Obj) }]));
  const problems: string[] = [];
  for (const [name, value] of headers) {
    if (isTransportHeader(name)) continue;
    const entry = documented.get(name);
    if (entry === undefined) {
      problems.push(`header ${name} is not documented for this response`);
      continue;
    }
    const schema = entry.header.schema;
    if (schema !== undefined) {
      for (const problem of schemasOf(document).problems(schema, headerValue(document, schema, value))) problems.push(`header ${entry.name}: ${problem}`);
    }
  }
  for (const [name, { name: documentedName, header }] of documented) {
    if (header.required === true && !headers.has(name)) problems.push(`required header ${documentedName} is missing`);
  }
  return problems;
}

/** Header values are text; a header documented as a number is checked as one. */
function headerValue(document: Obj, schema: Obj, value: string): unknown {
  const type = resolve(document, schema).type;
  return (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

function bodyProblems(document: Obj, response: Obj, headers: Map<string, string>, body: unknown, method: string): string[] {
  const empty = body === undefined || body === '';
  const content: Obj | undefined = response.content;
  if (content === undefined) return empty ? [] : ['a body was sent, but this response documents none'];
  if (empty) return method === 'head' ? [] : ['no body was sent, but this response documents one'];
  const mediaType = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const documentedType = Object.keys(content).find((type) => type.toLowerCase() === mediaType);
  if (documentedType === undefined) return [`content type "${mediaType}" is not documented (documented: ${Object.keys(content).join(', ')})`];
  const schema = content[documentedType].schema;
  if (schema === undefined || !/^application\/(.+\+)?json$/.test(mediaType)) return [];
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return ['the body is not valid JSON'];
    }
  }
  return schemasOf(document).problems(schema, value).map((problem) => `body ${problem}`);
}
