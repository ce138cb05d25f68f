import { expect } from 'chai';
import { configFrom } from '../../composition/config/parse-config.js';
import { createPlantStore, startServer } from '../../composition/index.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

describe('the docs page and its files', () => {
  let api: HttpServer;
  before(async () => {
    api = await startHttpServer(undefined, { basePath: '/v1' });
  });
  after(async () => api.close());
  const get = (path: string) => api.http.get(api.http.root(path), { token: null });
  // The page's files are a library's code and styles, not the service's answers: the client's
  // check for internals would flag their ordinary text (a bundle says "Error:"). Only their
  // status and headers are tested, so a bare fetch.
  const fetchAsset = (path: string) => fetch(`${api.url}${path}`);

  it('is HTML under a policy that lets it load from this server only', async () => {
    const page = await get('/docs');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).to.contain("default-src 'none'").and.contain("script-src 'self'").and.contain("connect-src 'self'");
    expect(policy).not.to.match(/unsafe-(inline|eval)|https?:/);
  });

  it('refers only to files this server serves, each cached for long under a versioned URL', async () => {
    const html = (await get('/docs')).text;
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(urls.length).to.be.greaterThan(3);
    for (const url of urls) {
      expect(url, 'a path on this server').to.match(/^\/docs\/[\w.-]+\?v=[\w.%-]+$/);
      const file = await fetchAsset(url);
      expect(file.status, url).to.equal(200);
      expect(file.headers.get('cache-control'), url).to.equal('public, max-age=31536000, immutable');
      const type = url.includes('.css') ? 'text/css; charset=utf-8' : url.includes('.js') ? 'text/javascript; charset=utf-8' : 'image/png';
      expect(file.headers.get('content-type'), url).to.equal(type);
    }
  });

  it('starts Swagger UI on /openapi.json, with the outside validator off', async () => {
    const script = (await get('/docs/docs-page.js')).text;
    expect(script).to.contain('url: "/openapi.json"').and.contain('validatorUrl: null');
  });

  it('serves nothing outside the list of files, however the name is spelled', async () => {
    for (const path of ['/docs/package.json', '/docs/swagger-initializer.js', '/docs/..%2Fpackage.json', '/docs/%2e%2e/package.json', '/docs/__proto__', '/docs/swagger-ui.css.map']) {
      const answer = await get(path);
      expect(answer.status, path).to.equal(404);
      expect(answer.body.error, path).to.equal(40400);
    }
  });
});

describe('the docs switch (--docs / PLANT_STORE_DOCS)', () => {
  it('is on unless set to false; off, /openapi.json and the docs page answer 404 like any unknown path, the API serves on', async () => {
    expect(configFrom([], {}).http.docs).to.equal(true);
    expect(configFrom([], { PLANT_STORE_DOCS: 'false' }).http.docs).to.equal(false);
    expect(configFrom(['--docs', 'true'], { PLANT_STORE_DOCS: 'false' }).http.docs).to.equal(true);
    const store = await createPlantStore();
    const token = 'docs-off-token-0123456789';
    const server = await startServer({ store, tokens: [token], port: 0, docs: false });
    try {
      // Bare fetch: the checked client reads /openapi.json, which this server does not serve.
      for (const path of ['/openapi.json', '/docs', '/docs/swagger-ui.css']) {
        const answer = await fetch(`${server.url}${path}`);
        expect([answer.status, ((await answer.json()) as { error: number }).error], path).to.deep.equal([404, 40400]);
      }
      expect((await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(200);
    } finally {
      await server.close();
      await store.close();
    }
  });
});
