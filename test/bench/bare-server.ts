/**
 * The ceiling: the same routes as the plant store on bare `node:http`, with nothing a
 * framework adds. It is meant to be honest, not a no-op: the same bearer check (SHA-256
 * digests compared with timingSafeEqual), the same order of checks, the same validation
 * of bodies and parameters, the same JSON shapes, statuses, error bodies and headers that
 * carry meaning (Location, Link, WWW-Authenticate, Allow). It has no request log, no
 * request ids and no rate limits. Plants live in a Map plus a sorted array of ids.
 *
 * Variables: PORT (default 0), PLANT_STORE_TOKENS (comma-separated), BENCH_PLANTS.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerParent, tellParent } from './child-protocol.js';
import { seedPlants, type SeedPlant } from './seed-plants.js';

const MAX_ID = Number.MAX_SAFE_INTEGER;
const BODY_LIMIT = 16 * 1024;
const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();
const tokenDigests = (process.env['PLANT_STORE_TOKENS'] ?? '').split(',').filter((t) => t !== '').map(digest);
const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Plant = SeedPlant;
const plants = new Map<number, Plant>();
const ids: number[] = [];

/** Index of the first id greater than `id`. */
function upperBound(id: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle]! <= id) low = middle + 1;
    else high = middle;
  }
  return low;
}

function add(plant: Plant): boolean {
  if (plants.has(plant.id)) return false;
  plants.set(plant.id, plant);
  if (ids.length === 0 || plant.id > ids[ids.length - 1]!) ids.push(plant.id);
  else ids.splice(upperBound(plant.id), 0, plant.id);
  return true;
}

function remove(id: number): boolean {
  if (!plants.delete(id)) return false;
  ids.splice(upperBound(id) - 1, 1);
  return true;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function fail(res: ServerResponse, status: number, error: number, message: string, headers?: Record<string, string>): void {
  send(res, status, { error, message }, headers);
}

function authorized(req: IncomingMessage, res: ServerResponse): boolean {
  const header = req.headers.authorization;
  if (header === undefined || header === '') {
    fail(res, 401, 40101, 'missing bearer token', { 'WWW-Authenticate': 'Bearer realm="plant-store"' });
    return false;
  }
  const token = bearer.exec(header)?.[1];
  let known = false;
  if (token !== undefined) {
    const presented = digest(token);
    for (const expected of tokenDigests) if (timingSafeEqual(presented, expected)) known = true;
  }
  if (!known) fail(res, 401, 40102, 'the bearer token is malformed or unknown', { 'WWW-Authenticate': 'Bearer realm="plant-store", error="invalid_token"' });
  return known;
}

/** Decimal digits within [min, max], else undefined. */
function decimal(raw: string | null, min: number, max: number): number | undefined {
  if (raw === null || !/^\d{1,16}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= min && value <= max ? value : undefined;
}

const codePoints = (text: string) => (text.length < 64 ? [...text].length : Array.from(text).length);
const boundedText = (text: unknown, max: number) =>
  typeof text === 'string' && text.length > 0 && (text.length <= max || codePoints(text) <= max) && text.trim() !== '';

function list(res: ServerResponse, search: string): void {
  const query = new URLSearchParams(search);
  const limitText = query.getAll('limit');
  const afterText = query.getAll('after');
  const limit = limitText.length === 0 ? 1000 : decimal(limitText.length === 1 ? limitText[0]! : null, 1, 1000);
  const after = afterText.length === 0 ? 0 : decimal(afterText.length === 1 ? afterText[0]! : null, 0, MAX_ID);
  if (limit === undefined || after === undefined) return fail(res, 400, 40003, 'limit must be an integer from 1 to 1000; after an id');
  const tags = query.getAll('tag');
  if (tags.length > 20 || tags.some((tag) => !boundedText(tag, 50))) return fail(res, 400, 40003, 'bad tag');
  const wanted = tags.length === 0 ? undefined : new Set(tags);
  const page: Plant[] = [];
  let more = false;
  for (let i = upperBound(after); i < ids.length; i++) {
    const plant = plants.get(ids[i]!)!;
    if (wanted !== undefined && (plant.tag === undefined || !wanted.has(plant.tag))) continue;
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(plant);
  }
  const headers: Record<string, string> = {};
  if (more) {
    query.set('limit', String(limit));
    query.set('after', String(page[page.length - 1]!.id));
    headers['Link'] = `</plants?${query}>; rel="next"`;
  }
  send(res, 200, page, headers);
}

function validPlant(value: unknown): Plant | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const { id, name, tag } = value as { id?: unknown; name?: unknown; tag?: unknown };
  const problems: string[] = [];
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_ID) problems.push(`id must be an integer from 1 to ${MAX_ID}`);
  if (!boundedText(name, 200)) problems.push('name must be a string of 1 to 200 characters, not only whitespace');
  if (tag != null && !boundedText(tag, 50)) problems.push('tag must be a string of 1 to 50 characters, not only whitespace, or null');
  if (problems.length > 0) return problems.join('; ');
  return tag == null ? { id: id as number, name: name as string } : { id: id as number, name: name as string, tag: tag as string };
}

function create(req: IncomingMessage, res: ServerResponse): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return fail(res, 415, 41501, 'the body must be sent as Content-Type: application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > BODY_LIMIT) tooLarge = true;
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (tooLarge) return fail(res, 413, 41301, `the body is larger than ${BODY_LIMIT} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(res, 400, 40002, 'the body is not valid JSON');
    }
    const plant = validPlant(json);
    if (typeof plant === 'string') return fail(res, 400, plant === 'not an object' ? 40002 : 40001, plant);
    if (!add(plant)) return fail(res, 409, 40901, `a plant with id ${plant.id} already exists`);
    send(res, 200, plant, { Location: `/plants/${plant.id}` });
  });
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const search = mark < 0 ? '' : url.slice(mark + 1);
  const method = req.method ?? 'GET';
  if (path === '/plants') {
    if (method !== 'GET' && method !== 'POST') return fail(res, 405, 40501, `${method} is not allowed`, { Allow: 'GET, POST' });
    if (!authorized(req, res)) return;
    return method === 'GET' ? list(res, search) : create(req, res);
  }
  const item = /^\/plants\/([^/]+)$/.exec(path);
  if (item !== null) {
    if (method !== 'GET' && method !== 'DELETE') return fail(res, 405, 40501, `${method} is not allowed`, { Allow: 'GET, DELETE' });
    if (!authorized(req, res)) return;
    const id = decimal(item[1]!, 1, MAX_ID);
    if (id === undefined) return fail(res, 400, 40003, `id must be an integer from 1 to ${MAX_ID}`);
    if (method === 'GET') {
      const plant = plants.get(id);
      return plant === undefined ? fail(res, 404, 40401, `no plant with id ${id}`) : send(res, 200, plant);
    }
    if (!remove(id)) return fail(res, 404, 40401, `no plant with id ${id}`);
    res.writeHead(204);
    return res.end();
  }
  fail(res, 404, 40400, `no route for ${method} ${path}`);
});

const count = Number(process.env['BENCH_PLANTS'] ?? '1000');
const started = performance.now();
for (const plant of seedPlants(count)) add(plant);
const preloadSeconds = (performance.now() - started) / 1000;
server.listen(Number(process.env['PORT'] ?? '0'), '127.0.0.1', () => {
  answerParent(() => new Promise((resolve) => server.close(() => resolve())));
  tellParent({ type: 'ready', port: (server.address() as AddressInfo).port, plants: count, preloadSeconds, storage: 'memory (Map + sorted ids)' });
});
