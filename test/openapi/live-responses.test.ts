import { expect } from 'chai';
import { ErrorCode, PlantStoreError } from '../../core/index.js';
import type { RequestOptions } from '../support/http-client.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

const json = (body: unknown): RequestOptions => ({ json: body });
// An empty Authorization header, as the document's routes without a token see it.
const noToken: RequestOptions = { authorization: '' };

/** [what, method, path, request, expected status, expected error code] */
type Case = [string, string, string, RequestOptions, number, number?];

const plantCases: Case[] = [
  ['list', 'GET', '/plants', {}, 200],
  ['list a page with a next link', 'GET', '/plants?limit=1', {}, 200],
  ['list by tags', 'GET', '/plants?tag=tropical&tag=fern', {}, 200],
  ['list with a trailing slash', 'GET', '/plants/', {}, 200],
  ['bad limit', 'GET', '/plants?limit=0', {}, 400, ErrorCode.InvalidParameter],
  ['get with a tag', 'GET', '/plants/1', {}, 200],
  ['get without a tag', 'GET', '/plants/2', {}, 200],
  ['get a bad id', 'GET', '/plants/abc', {}, 400, ErrorCode.InvalidParameter],
  ['get an unknown id', 'GET', '/plants/99', {}, 404, ErrorCode.PlantNotFound],
  ['create', 'POST', '/plants', json({ id: 3, name: 'Fern', tag: null, extra: true }), 200],
  ['create an invalid plant', 'POST', '/plants', json({ id: '4', name: '' }), 400, ErrorCode.InvalidPlant],
  ['create from broken JSON', 'POST', '/plants', { raw: '{"id":' }, 400, ErrorCode.MalformedBody],
  ['create a taken id', 'POST', '/plants', json({ id: 1, name: 'Again' }), 409, ErrorCode.PlantExists],
  ['create from a huge body', 'POST', '/plants', json({ id: 5, name: 'x'.repeat(20_000) }), 413, ErrorCode.BodyTooLarge],
  ['create from text', 'POST', '/plants', { raw: '{}', contentType: 'text/plain' }, 415, ErrorCode.UnsupportedMediaType],
  ['delete', 'DELETE', '/plants/2', {}, 204],
  ['delete a bad id', 'DELETE', '/plants/0', {}, 400, ErrorCode.InvalidParameter],
  ['delete an unknown id', 'DELETE', '/plants/99', {}, 404, ErrorCode.PlantNotFound],
  ['no token', 'GET', '/plants', noToken, 401, ErrorCode.MissingToken],
  ['an unknown token', 'DELETE', '/plants/1', { token: 'unknown-token-0123456789abcdef' }, 401, ErrorCode.InvalidToken],
  ['another scheme', 'POST', '/plants', { authorization: 'Basic dXNlcjpwYXNz' }, 401, ErrorCode.InvalidToken],
  ['HEAD of a list', 'HEAD', '/plants', {}, 200],
  ['HEAD without a token', 'HEAD', '/plants/1', noToken, 401],
  ['OPTIONS of a plant path', 'OPTIONS', '/plants/1', noToken, 200],
  ['a method the path does not answer', 'PUT', '/plants', {}, 405, ErrorCode.MethodNotAllowed],
  ['another one', 'PATCH', '/plants/1', noToken, 405, ErrorCode.MethodNotAllowed],
];

const operationalCases: Case[] = [
  ['liveness', 'GET', '/healthz', noToken, 200],
  ['readiness', 'GET', '/readyz', noToken, 200],
  ['the document', 'GET', '/openapi.json', noToken, 200],
  ['the docs page', 'GET', '/docs', noToken, 200],
  ['a docs stylesheet', 'GET', '/docs/swagger-ui.css?v=1', noToken, 200],
  ['the docs script', 'GET', '/docs/docs-page.js', noToken, 200],
  ['a docs image', 'GET', '/docs/favicon-32x32.png', noToken, 200],
  ['HEAD of the docs bundle', 'HEAD', '/docs/swagger-ui-bundle.js', noToken, 200],
  ['a file not on the list', 'GET', '/docs/package.json', noToken, 404, ErrorCode.NoSuchRoute],
  ['an escape attempt', 'GET', '/docs/..%2f..%2fpackage.json', noToken, 404, ErrorCode.NoSuchRoute],
  ['POST to an operational route', 'POST', '/healthz', noToken, 405, ErrorCode.MethodNotAllowed],
  ['an unknown path', 'GET', '/nothing/here', noToken, 404, ErrorCode.NoSuchRoute],
  ['a caller request id', 'GET', '/healthz', { headers: { 'x-request-id': 'trace-42' } }, 200],
];

/** The client checks every answer against the document; then the status and code are checked. */
async function expectDocumented(api: HttpServer, [what, method, path, options, status, code]: Case): Promise<void> {
  // A path from the root: the cases spell out any base path themselves.
  const response = await api.http.request(method, api.http.root(path), { ...options, expectServerError: status === 500 });
  expect(response.status, what).to.equal(status);
  if (code !== undefined) expect(response.body.error, what).to.equal(code);
}

describe('live responses match the OpenAPI document', () => {
  let api: HttpServer;
  afterEach(async () => api?.close());

  for (const basePath of ['', '/v1']) {
    describe(basePath ? `under base path ${basePath}` : 'at the root', () => {
      beforeEach(async () => {
        api = await startHttpServer(undefined, { basePath, env: { PLANT_STORE_RATE_LIMIT: '100', PLANT_STORE_RATE_BURST: '1000', PLANT_STORE_AUTH_FAILURE_LIMIT: '1000' } });
        await api.store.create({ id: 1, name: 'Monstera', tag: 'tropical' });
        await api.store.create({ id: 2, name: 'Calathea' });
      });
      for (const entry of plantCases) {
        it(`${entry[0]}: ${entry[1]} ${entry[2]} → ${entry[4]}`, () => expectDocumented(api, [entry[0], entry[1], `${basePath}${entry[2]}`, entry[3], entry[4], entry[5]]));
      }
      for (const entry of operationalCases) {
        it(`${entry[0]}: ${entry[1]} ${entry[2]} → ${entry[4]}`, () => expectDocumented(api, entry));
      }
    });
  }

  it('the plant paths without the base path are unknown when one is set', async () => {
    api = await startHttpServer(undefined, { basePath: '/v1' });
    await expectDocumented(api, ['unprefixed', 'GET', '/plants', {}, 404, ErrorCode.NoSuchRoute]);
  });

  it('429 from the per-token limit, with Retry-After and RateLimit headers', async () => {
    api = await startHttpServer(undefined, { env: { PLANT_STORE_RATE_LIMIT: '0.01', PLANT_STORE_RATE_BURST: '1' } });
    await expectDocumented(api, ['first', 'GET', '/plants', {}, 200]);
    await expectDocumented(api, ['second', 'POST', '/plants', json({ id: 1, name: 'Fern' }), 429, ErrorCode.RateLimited]);
  });

  it('429 from the failed-authentication limit, before any token is checked', async () => {
    api = await startHttpServer(undefined, { env: { PLANT_STORE_AUTH_FAILURE_LIMIT: '1' } });
    await expectDocumented(api, ['first guess', 'GET', '/plants', { token: 'guess-0123456789abcdef' }, 401, ErrorCode.InvalidToken]);
    await expectDocumented(api, ['good token', 'GET', '/plants/1', {}, 429, ErrorCode.RateLimited]);
  });

  it('a CORS preflight and a cross-origin answer', async () => {
    api = await startHttpServer(undefined, { env: { PLANT_STORE_CORS_ORIGINS: 'http://app.example' } });
    const origin = { origin: 'http://app.example' };
    await expectDocumented(api, ['preflight', 'OPTIONS', '/plants', { ...noToken, headers: { ...origin, 'access-control-request-method': 'POST' } }, 204]);
    await expectDocumented(api, ['cross-origin list', 'GET', '/plants', { headers: origin }, 200]);
  });
});

describe('failure responses match the OpenAPI document', () => {
  let api: HttpServer;
  afterEach(async () => api?.close());

  const requests: [string, string, RequestOptions][] = [
    ['GET', '/plants', {}],
    ['GET', '/plants/1', {}],
    ['POST', '/plants', json({ id: 1, name: 'Fern' })],
    ['DELETE', '/plants/1', {}],
    ['GET', '/readyz', {}],
  ];

  // Storage that fails: statuses a healthy store never gives.
  for (const [status, failure] of [
    [503, new PlantStoreError(ErrorCode.StorageUnavailable, 'storage did not answer in time')],
    [500, new Error('a bug')],
  ] as const) {
    it(`${status} on every route that reaches storage`, async () => {
      api = await startHttpServer();
      api.breakStorage(failure);
      for (const [method, path, init] of requests) await expectDocumented(api, [`${method} ${path}`, method, path, init, status]);
    });
  }
});
