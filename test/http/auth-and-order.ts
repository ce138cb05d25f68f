import { expect } from 'chai';
import type { StorageFactory } from '../storage/storage-contract.js';
import { rawExchange } from '../support/raw-http.js';
import { allowedMethods, challenge, expectError, expectOk, invalidTokenChallenge } from '../support/http-expect.js';
import { randomToken, useHttpServer } from '../support/http-server.js';

const plant = { id: 1, name: 'Fern' };
const oversized = JSON.stringify({ id: 1, name: 'Fern', padding: 'x'.repeat(17 * 1024) });

/** Bearer authentication, routing errors, and the documented order of checks. */
export function authAndOrderSuite(storage: StorageFactory): void {
  describe('authentication', () => {
    const t = useHttpServer(storage);

    it('every /plants route without Authorization is 401 40101 with WWW-Authenticate: Bearer realm="plant-store"', async () => {
      const responses = [
        await t.http.get('/plants', { token: null }),
        await t.http.get('/plants/1', { token: null }),
        await t.http.post('/plants', { token: null, json: plant }),
        await t.http.delete('/plants/1', { token: null }),
      ];
      for (const response of responses) {
        expectError(response, 401, 40101);
        expect(response.headers.get('www-authenticate'), response.request).to.equal(challenge);
      }
      const head = await t.http.head('/plants', { token: null });
      expect(head.status).to.equal(401);
      expect(head.headers.get('www-authenticate')).to.equal(challenge);
    });

    it('a wrong scheme, a bare "Bearer", a malformed or an unknown token is 401 40102 with error="invalid_token"', async () => {
      const token = t.server.token;
      const refused = [
        `Basic ${Buffer.from(`user:${token}`).toString('base64')}`,
        `Basic ${token}`,
        `Token ${token}`,
        token,
        'Bearer',
        `Bearer ${token} ${token}`,
        'Bearer not,a;token',
        `Bearer ${token}!`,
        `Bearer ${randomToken()}`,
        `Bearer ${token}x`,
      ];
      for (const authorization of refused) {
        for (const response of [await t.http.get('/plants', { authorization }), await t.http.post('/plants', { authorization, json: plant })]) {
          expectError(response, 401, 40102);
          expect(response.headers.get('www-authenticate'), authorization).to.equal(invalidTokenChallenge);
        }
      }
      // A byte fetch refuses to send: a token ending in a non-ASCII byte, written on a bare socket.
      const raw = await rawExchange(t.server, `GET /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.server.token}\xf6\r\nConnection: close`);
      expectError(raw, 401, 40102);
      expect(raw.headers.get('www-authenticate')).to.equal(invalidTokenChallenge);
      expect((await t.server.store.list()).plants).to.deep.equal([]);
    });

    it('the Bearer scheme is case-insensitive', async () => {
      for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
        expectOk(await t.http.get('/plants', { authorization: `${scheme} ${t.server.token}` }), 200);
      }
    });

    it('a refused DELETE changes nothing, and no response carries a token (checked on every response)', async () => {
      // Every response in this suite is also checked for configured and presented tokens.
      const created = await t.http.post('/plants', { json: plant });
      expectOk(created, 200);
      expect(created.text).to.not.include(t.server.token);
      const refused = await t.http.delete('/plants/1', { token: randomToken() });
      expectError(refused, 401, 40102);
      expectOk(await t.http.get('/plants/1'), 200);
    });

    it('operational routes /healthz and /readyz answer 200 without a token', async () => {
      for (const path of ['/healthz', '/readyz']) {
        const response = await t.http.get(t.http.root(path), { token: null });
        expectOk(response, 200);
      }
    });

    it('an unauthenticated POST is refused with 401 before its body is read', async () => {
      // 10 MB are declared but only 64 KiB are sent: an answer proves nothing waited for the rest.
      const head = ['POST /plants HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${10 * 1024 * 1024}`].join('\r\n');
      const missing = await rawExchange(t.server, head, '{"id":1,"name":"' + 'x'.repeat(64 * 1024));
      expectError(missing, 401, 40101);
      expect(missing.elapsedMs).to.be.below(2000);
      const unknown = await rawExchange(t.server, `${head}\r\nAuthorization: Bearer ${randomToken()}`, 'x'.repeat(64 * 1024));
      expectError(unknown, 401, 40102);
      expect((await t.server.store.list()).plants).to.deep.equal([]);
    });
  });

  describe('several configured tokens', () => {
    const t = useHttpServer(storage, { tokenCount: 3 });

    it('every configured token is accepted, and they act on the same store', async () => {
      const [first, second, third] = t.server.tokens;
      expectOk(await t.http.post('/plants', { token: first!, json: { id: 1, name: 'Fern' } }), 200);
      expectOk(await t.http.post('/plants', { token: second!, json: { id: 2, name: 'Ivy' } }), 200);
      const listed = await t.http.get('/plants', { token: third! });
      expectOk(listed, 200);
      expect(listed.body).to.deep.equal([{ id: 1, name: 'Fern' }, { id: 2, name: 'Ivy' }]);
    });
  });

  describe('routing errors', () => {
    const t = useHttpServer(storage);

    it('an unknown path is 404 40400, with or without a token', async () => {
      for (const path of ['/nope', '/plant', '/plants/1/extra', '/v1/plants', '/']) {
        for (const token of [null, t.server.token]) {
          expectError(await t.http.get(path, { token }), 404, 40400);
        }
      }
      expectError(await t.http.post('/plantz', { json: plant }), 404, 40400);
    });

    it('an unsupported method on /plants is 405 40501 with Allow: GET, HEAD, POST', async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const response = await t.http.request(method, '/plants', { json: plant });
        expectError(response, 405, 40501);
        expect(allowedMethods(response), method).to.deep.equal(['GET', 'HEAD', 'POST']);
      }
    });

    it('an unsupported method on /plants/{id} is 405 40501 with Allow: DELETE, GET, HEAD', async () => {
      for (const method of ['POST', 'PUT', 'PATCH']) {
        const response = await t.http.request(method, '/plants/1', { json: plant });
        expectError(response, 405, 40501);
        expect(allowedMethods(response), method).to.deep.equal(['DELETE', 'GET', 'HEAD']);
      }
      expect((await t.server.store.list()).plants).to.deep.equal([]);
    });

    it('HEAD /plants with a token is 200 without a body', async () => {
      const response = await t.http.head('/plants');
      expectOk(response, 200);
      expect(response.text).to.equal('');
    });
  });

  // Both 429 steps are tested in test/operations/rate-limit.test.ts: this server runs without limits.
  describe('order of checks: route → address failure limit → token → scope → token rate limit → media type → size → JSON → validation → conflict', () => {
    const t = useHttpServer(storage);

    it('an unknown route without a token is 404, not 401', async () => {
      expectError(await t.http.get('/nope', { token: null }), 404, 40400);
      expectError(await t.http.post('/plants/1/extra', { token: null, json: plant }), 404, 40400);
    });

    it('a wrong method without a token, or with an unknown one, is 405, not 401', async () => {
      expectError(await t.http.request('PUT', '/plants', { token: null }), 405, 40501);
      expectError(await t.http.request('POST', '/plants/1', { token: randomToken() }), 405, 40501);
    });

    it('a bad path id or query without a token is 401, not 400', async () => {
      expectError(await t.http.get('/plants/abc', { token: null }), 401, 40101);
      expectError(await t.http.delete('/plants/0', { token: null }), 401, 40101);
      expectError(await t.http.get('/plants?limit=0', { token: null }), 401, 40101);
    });

    it('a POST without a token is 401 whatever its body: text/plain, oversized or malformed', async () => {
      expectError(await t.http.post('/plants', { token: null, raw: 'hello', contentType: 'text/plain' }), 401, 40101);
      expectError(await t.http.post('/plants', { token: null, raw: oversized }), 401, 40101);
      expectError(await t.http.post('/plants', { token: randomToken(), raw: '{"id":' }), 401, 40102);
    });

    it('an oversized text/plain body is 415, not 413', async () => {
      expectError(await t.http.post('/plants', { raw: oversized, contentType: 'text/plain' }), 415, 41501);
    });

    it('an oversized malformed JSON body is 413, not 400', async () => {
      expectError(await t.http.post('/plants', { raw: `{"id":1,${'x'.repeat(17 * 1024)}` }), 413, 41301);
    });

    it('malformed JSON that looks like a duplicate plant is 400 40002, not 409', async () => {
      expectOk(await t.http.post('/plants', { json: plant }), 200);
      expectError(await t.http.post('/plants', { raw: '{"id": 1, "name": "Fern",}' }), 400, 40002);
    });

    it('an invalid plant with a duplicate id is 400 40001, not 409', async () => {
      expectOk(await t.http.post('/plants', { json: plant }), 200);
      expectError(await t.http.post('/plants', { json: { id: 1, name: '' } }), 400, 40001, 'name');
      expectError(await t.http.post('/plants', { json: { id: 1, name: 'Fern', tag: '' } }), 400, 40001, 'tag');
      expectError(await t.http.post('/plants', { json: { id: 1, name: 'Fern' } }), 409, 40901);
    });
  });
}
