/**
 * The framework floor for W1, W2 and W3: GET /plants?limit=n, POST /plants and
 * GET /plants/{id} on Koa + @koa/router with the same bearer check as every contender
 * (SHA-256 digests compared with timingSafeEqual) and nothing else — no request log,
 * request ids, security headers, error mapping, validation, use case or repository; a page
 * is a slice of a sorted array, with the Link header of a next page; a create reads the
 * body as this server does (koa-body, text up to 16 KiB, then JSON.parse) and inserts
 * into a Map. The distance from here to the node:http ceiling is what
 * Koa costs; from this server down to here, what the service's own features cost.
 *
 * Variables: PORT (default 0), PLANT_STORE_TOKENS (comma-separated), BENCH_PLANTS.
 */
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { koaBody } from 'koa-body';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerParent, tellParent } from './child-protocol.js';
import { seedPlants, type SeedPlant } from './seed-plants.js';

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();
const tokenDigests = (process.env['PLANT_STORE_TOKENS'] ?? '').split(',').filter((t) => t !== '').map(digest);
const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

const plants = new Map<number, SeedPlant>();
const count = Number(process.env['BENCH_PLANTS'] ?? '1000');
const started = performance.now();
for (const plant of seedPlants(count)) plants.set(plant.id, plant);
// The seed gives ids 1, 2, 3, …: insertion order is id order.
const inOrder = [...plants.values()];
const preloadSeconds = (performance.now() - started) / 1000;

function authorized(ctx: Context): boolean {
  const token = bearer.exec(ctx.get('Authorization'))?.[1];
  const presented = token === undefined ? undefined : digest(token);
  if (presented === undefined || !tokenDigests.some((expected) => timingSafeEqual(presented, expected))) {
    ctx.status = 401;
    ctx.body = { error: 40102, message: 'the bearer token is malformed or unknown' };
    return false;
  }
  return true;
}

const router = new Router();
router.get('/plants', (ctx) => {
  if (!authorized(ctx)) return;
  const limit = Number(ctx.query['limit'] ?? 1000);
  const page = inOrder.slice(0, limit);
  if (inOrder.length > limit) ctx.set('Link', `</plants?limit=${limit}&after=${page[page.length - 1]!.id}>; rel="next"`);
  ctx.body = page;
});
router.get('/plants/:id', (ctx) => {
  if (!authorized(ctx)) return;
  const plant = plants.get(Number(ctx.params['id']));
  ctx.status = plant === undefined ? 404 : 200;
  ctx.body = plant ?? { error: 40401, message: 'no such plant' };
});
// The token is checked before the body is read, as this server does.
const checkToken = (ctx: Context, next: () => Promise<unknown>) => (authorized(ctx) ? next() : undefined);
const readText = koaBody({ json: false, urlencoded: false, multipart: false, text: true, textTypes: ['application/json'], textLimit: 16 * 1024 });
router.post('/plants', checkToken, readText, (ctx) => {
  const plant = JSON.parse(String(ctx.request.body)) as SeedPlant;
  if (plants.has(plant.id)) {
    ctx.status = 409;
    ctx.body = { error: 40901, message: 'a plant with that id already exists' };
    return;
  }
  plants.set(plant.id, plant);
  ctx.set('Location', `/plants/${plant.id}`);
  ctx.body = plant;
});
const app = new Koa();
app.use(router.routes());

const server = createServer(app.callback());
server.listen(Number(process.env['PORT'] ?? '0'), '127.0.0.1', () => {
  answerParent(() => new Promise((resolve) => server.close(() => resolve())));
  tellParent({ type: 'ready', port: (server.address() as AddressInfo).port, plants: count, preloadSeconds, storage: 'memory (Map)' });
});
