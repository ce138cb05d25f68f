import { expect } from 'chai';
import { createPlantStore, startServer } from '../../composition/index.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { expectError, expectOk } from '../support/http-expect.js';

const full = 'full-token-0123456789abcdef';
const reader = 'reader-token-0123456789abcdef';
const writer = 'writer-token-0123456789abcdef';
const plant = { id: 1, name: 'Fern' };
const challenge = (scope: string) => `Bearer realm="plant-store", error="insufficient_scope", scope="${scope}"`;

describe('static tokens with scopes', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (env: Record<string, string> = {}) => {
    server = await startHttpServer(undefined, { tokens: [full, `${reader} plants:read`, `${writer} plants:write`], env });
    return server;
  };

  it('a token given as a string has both scopes; a read-only one reads and gets 403 40301 on POST and DELETE', async () => {
    const { http, store } = await start();
    expectOk(await http.post('/plants', { token: full, json: plant }), 200);
    expectOk(await http.get('/plants', { token: reader }), 200);
    expectOk(await http.get('/plants/1', { token: reader }), 200);
    expectOk(await http.head('/plants', { token: reader }), 200);
    for (const response of [await http.post('/plants', { token: reader, json: { id: 2, name: 'Ivy' } }), await http.delete('/plants/1', { token: reader })]) {
      expectError(response, 403, 40301, 'plants:write');
      expect(response.headers.get('www-authenticate')).to.equal(challenge('plants:write'));
    }
    expect((await store.list()).plants).to.deep.equal([plant]);
  });

  it('a write-only token creates and deletes, and gets 403 naming plants:read on GET', async () => {
    const { http } = await start();
    expectOk(await http.post('/plants', { token: writer, json: plant }), 200);
    for (const response of [await http.get('/plants', { token: writer }), await http.get('/plants/1', { token: writer })]) {
      expectError(response, 403, 40301, 'plants:read');
      expect(response.headers.get('www-authenticate')).to.equal(challenge('plants:read'));
    }
    expectOk(await http.delete('/plants/1', { token: writer }), 204);
  });

  it('order: token (401) before scope (403) before rate limit (429) and media type (415)', async () => {
    const { http } = await start({ PLANT_STORE_RATE_LIMIT: '0.5', PLANT_STORE_RATE_BURST: '1' });
    expectError(await http.post('/plants', { token: null, raw: 'x', contentType: 'text/plain' }), 401, 40101);
    expectOk(await http.get('/plants', { token: reader }), 200);
    // The reader's bucket is empty now: a refusal for scope still comes first, and costs nothing.
    expectError(await http.post('/plants', { token: reader, raw: 'x', contentType: 'text/plain' }), 403, 40301);
    expectError(await http.get('/plants', { token: reader }), 429, 42901);
  });

  it('a refusal for scope does not count as a failed authentication', async () => {
    const { http } = await start({ PLANT_STORE_AUTH_FAILURE_LIMIT: '2' });
    for (let i = 0; i < 5; i++) expectError(await http.delete('/plants/1', { token: reader }), 403, 40301);
    expectOk(await http.get('/plants', { token: reader }), 200);
  });

  it('startServer rejects a short or malformed token, or an unknown scope, like the command does, without showing it', async () => {
    const store = await createPlantStore();
    try {
      const refused: [unknown[], RegExp][] = [
        [['x'], /token #1 is shorter than 16 characters/],
        [[full, 'bad token with spaces'], /token #2 has characters a bearer token cannot carry/],
        [[{ token: full, scopes: ['plants:admin'] }], /token #1 names an unknown scope "plants:admin"/],
        [[], /at least one token, or a JWT identity provider/],
      ];
      for (const [tokens, message] of refused) {
        let failure: unknown;
        await startServer({ store, tokens: tokens as never, port: 0 }).then(
          (running) => running.close(0),
          (error: unknown) => (failure = error),
        );
        expect(failure, String(message)).to.be.instanceOf(Error);
        expect((failure as Error).message).to.match(message);
        expect((failure as Error).message).not.to.include('0123456789');
      }
    } finally {
      await store.close();
    }
  });
});
