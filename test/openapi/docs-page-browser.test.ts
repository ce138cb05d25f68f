import { expect } from 'chai';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { projectRoot } from '../support/project-root.js';
import { inCi } from '../support/in-ci.cjs';
import { tempDir, type TempDir } from '../support/temp-dir.js';

// The Debian package's browser: CI installs it (.ci/run); playwright's own download cannot
// run here, and a page test must not depend on a machine's stray browser.
const chromiumPath = '/usr/bin/chromium';
// The picture in docs/api.md is refreshed on request only, so a test run leaves the tree clean:
// UPDATE_DOCS_SCREENSHOT=1 npm test. Otherwise the shot goes beside the build output.
const screenshotPath = process.env['UPDATE_DOCS_SCREENSHOT'] === '1'
  ? join(projectRoot, 'docs', 'api-docs.png')
  : join(projectRoot, 'dist', 'api-docs.png');

const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // No name resolves: the page may reach the loopback test server and nothing else.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

const signupTitle = 'with sign-up on: "Get a sandbox token", then "Try it out" creates and lists plants in the new sandbox only';
const feedTitle = "the change feed with Chromium's own EventSource, from the docs page's origin: live events in order; closed, 100 changes made, then a new EventSource with ?after= the last id: exactly those 100, then live";

const title = (basePath: string) =>
  `GET /docs${basePath ? ` with base path ${basePath}` : ''} in Chromium: every operation shows; with a pasted token, GET ${basePath}/plants answers 200 with the plants`;

describe('the docs page in a headless browser', function () {
  this.timeout(90_000);

  if (!existsSync(chromiumPath) && !inCi) {
    // One pending line per test, so a run without Chromium counts each one it skipped.
    for (const skipped of [title(''), title('/v1'), signupTitle, feedTitle]) it(`${skipped} — pending: no Chromium at ${chromiumPath} (install the Debian package chromium; CI does)`);
    return;
  }

  let api: HttpServer | undefined;
  let context: BrowserContext | undefined;
  let profile: TempDir | undefined;
  afterEach(async () => {
    await context?.close();
    await api?.close();
    profile?.remove();
    context = api = profile = undefined;
  });

  for (const basePath of ['', '/v1']) {
    it(title(basePath), async () => {
      if (!existsSync(chromiumPath)) throw new Error(`CI needs Chromium at ${chromiumPath}: .ci/run installs the Debian package chromium`);
      api = await startHttpServer(undefined, { basePath });
      await api.store.create({ id: 1, name: 'Monstera', tag: 'tropical' });
      await api.store.create({ id: 2, name: 'Calathea' });
      profile = tempDir('plant-store-chromium-');
      context = await chromium.launchPersistentContext(profile.path, { executablePath: chromiumPath, args: flags, viewport: { width: 1280, height: 900 } });
      const { page, blocked, errors } = await watchedPage(context, new URL(api.url).host);

      await page.goto(`${api.url}/docs`);
      await page.locator('.opblock').first().waitFor();
      for (const { tag, operationId } of operations(api.openapi)) {
        await page.locator(`#operations-${tag}-${operationId}`).waitFor();
      }
      // The webhooks section (OpenAPI 3.1 `webhooks`) shows as operations of its own.
      const webhooks = Object.keys(api.openapi.webhooks ?? {}).length;
      expect(webhooks).to.be.greaterThan(0);
      expect(await page.locator('.opblock').count()).to.equal(operations(api.openapi).length + webhooks);
      expect(await page.content()).to.contain('plant.created: a plant was added');
      // A lock on the plant operations only: a webhook receiver needs no bearer token.
      expect(await page.locator('#operations-plants-listPlants .authorization__btn').count()).to.equal(1);
      for (const operationId of ['plantCreated', 'plantDeleted']) {
        await page.locator(`#operations-webhooks-${operationId}`).waitFor();
        expect(await page.locator(`#operations-webhooks-${operationId} .authorization__btn`).count(), operationId).to.equal(0);
      }

      await page.locator('.auth-wrapper button.authorize').click();
      await page.locator('#auth-bearer-value').fill(api.token);
      await page.locator('.modal-ux button.authorize').click();
      await page.locator('.modal-ux button.btn-done').click();

      const list = page.locator('#operations-plants-listPlants');
      await list.locator('.opblock-summary-control').click();
      await list.locator('button.try-out__btn').click();
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === `${basePath}/plants`);
      await list.locator('button.execute').click();
      expect((await answered).status()).to.equal(200);
      const result = list.locator('.live-responses-table tr.response').first();
      await result.locator('.response-col_status', { hasText: '200' }).waitFor();
      const shown = await result.locator('.response-col_description pre').first().textContent();
      expect(JSON.parse(shown ?? '')).to.deep.equal([{ id: 1, name: 'Monstera', tag: 'tropical' }, { id: 2, name: 'Calathea' }]);

      expect(blocked, 'requests that left the test server').to.deep.equal([]);
      expect(errors, 'console errors (a CSP violation is one)').to.deep.equal([]);
      if (basePath === '') await saveScreenshot(page);
    });
  }

  it(signupTitle, async () => {
    if (!existsSync(chromiumPath)) throw new Error(`CI needs Chromium at ${chromiumPath}: .ci/run installs the Debian package chromium`);
    api = await startHttpServer(undefined, { env: { PLANT_STORE_SANDBOX_SIGNUP: 'on' } });
    await api.store.create({ id: 1, name: 'In the default sandbox' });
    profile = tempDir('plant-store-chromium-');
    context = await chromium.launchPersistentContext(profile.path, { executablePath: chromiumPath, args: flags, viewport: { width: 1280, height: 900 } });
    const { page, blocked, errors } = await watchedPage(context, new URL(api.url).host);

    await page.goto(`${api.url}/docs`);
    await page.locator('#sandbox-offer button').click();
    await page.locator('#sandbox-status', { hasText: /^Sandbox sb-[a-z2-7]{16}: / }).waitFor();

    const create = page.locator('#operations-plants-createPlant');
    await create.locator('.opblock-summary-control').click();
    await create.locator('button.try-out__btn').click();
    await create.locator('textarea.body-param__text').fill('{"id": 7, "name": "Fern"}');
    const created = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/plants');
    await create.locator('button.execute').click();
    expect((await created).status()).to.equal(200);

    const list = page.locator('#operations-plants-listPlants');
    await list.locator('.opblock-summary-control').click();
    await list.locator('button.try-out__btn').click();
    const listed = page.waitForResponse((response) => response.request().method() === 'GET' && new URL(response.url()).pathname === '/plants');
    await list.locator('button.execute').click();
    expect((await listed).status()).to.equal(200);
    const result = list.locator('.live-responses-table tr.response').first();
    await result.locator('.response-col_status', { hasText: '200' }).waitFor();
    const shown = await result.locator('.response-col_description pre').first().textContent();
    expect(JSON.parse(shown ?? ''), "the sandbox's plants, not the default sandbox's").to.deep.equal([{ id: 7, name: 'Fern' }]);

    expect(blocked, 'requests that left the test server').to.deep.equal([]);
    expect(errors, 'console errors (a CSP violation is one)').to.deep.equal([]);
  });

  it(feedTitle, async () => {
    if (!existsSync(chromiumPath)) throw new Error(`CI needs Chromium at ${chromiumPath}: .ci/run installs the Debian package chromium`);
    api = await startHttpServer();
    profile = tempDir('plant-store-chromium-');
    context = await chromium.launchPersistentContext(profile.path, { executablePath: chromiumPath, args: flags });
    const { page, blocked, errors } = await watchedPage(context, new URL(api.url).host);
    await page.goto(`${api.url}/docs`);
    // The page's own origin, so the docs page's Content-Security-Policy applies as it would for a user.
    const follow = (query: string) =>
      page.evaluate(
        (query) =>
          new Promise<void>((resolve, reject) => {
            const w = window as unknown as { received: string[][]; feed?: EventSource };
            w.feed?.close();
            w.received = [];
            const feed = (w.feed = new EventSource(`/plants/changes?${query}`));
            for (const type of ['plant.created', 'plant.deleted', 'feed.reset']) feed.addEventListener(type, (event) => w.received.push([type, (event as MessageEvent).data, (event as MessageEvent).lastEventId]));
            feed.onopen = () => resolve();
            feed.onerror = () => reject(new Error('the EventSource failed'));
          }),
        query,
      );
    const received = async (count: number) => {
      await page.waitForFunction((count) => (window as unknown as { received: unknown[] }).received.length >= count, count);
      return page.evaluate(() => (window as unknown as { received: string[][] }).received);
    };

    await follow(`access_token=${api.token}`);
    await api.http.create(1, 'Monstera');
    await api.http.create(2, 'Calathea');
    await api.http.delete('/plants/1');
    const live = await received(3);
    expect(live.map(([type, data]) => `${type} ${data}`)).to.deep.equal(['plant.created {"id":1,"name":"Monstera"}', 'plant.created {"id":2,"name":"Calathea"}', 'plant.deleted {"id":1}']);

    // Closed, then 100 changes: 80 creates and 20 deletes.
    await page.evaluate(() => (window as unknown as { feed: EventSource }).feed.close());
    const missed: string[] = [];
    for (let id = 3; id <= 82; id++) {
      await api.http.create(id, `while away ${id}`);
      missed.push(`plant.created ${id}`);
    }
    for (let id = 3; id <= 22; id++) {
      await api.http.delete(`/plants/${id}`);
      missed.push(`plant.deleted ${id}`);
    }
    await follow(`access_token=${api.token}&after=${encodeURIComponent(live.at(-1)![2]!)}`);
    await api.http.create(83, 'after the resume');
    const resumed = await received(101);
    expect(resumed.map(([type, data]) => `${type} ${JSON.parse(data!).id}`)).to.deep.equal([...missed, 'plant.created 83']);

    expect(blocked, 'requests that left the test server').to.deep.equal([]);
    expect(errors, 'console errors (a CSP violation is one)').to.deep.equal([]);
  });
});

/** A page whose requests can only reach `host`; what else it tried and any console error are collected. */
async function watchedPage(context: BrowserContext, host: string): Promise<{ page: Page; blocked: string[]; errors: string[] }> {
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'http:' && url.host === host) return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, blocked, errors };
}

function operations(document: Record<string, any>): { tag: string; operationId: string }[] {
  return Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) =>
    Object.values(item)
      .filter((operation) => operation?.operationId !== undefined)
      .map((operation) => ({ tag: operation.tags[0], operationId: operation.operationId })),
  );
}

/** For docs/api.md: the executed GET /plants with its answer, in a 1280×900 view. */
async function saveScreenshot(page: Page): Promise<void> {
  // From the Execute button down: the request as curl, its URL, and the 200 with the plants.
  await page.locator('#operations-plants-listPlants button.execute').evaluate((button) => {
    button.scrollIntoView({ block: 'start' });
    window.scrollBy(0, -16);
  });
  mkdirSync(dirname(screenshotPath), { recursive: true });
  await page.screenshot({ path: screenshotPath });
}
