import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { buildServer, type BuiltServer, type ServerLog } from '../../composition/build-server.js';
import { configFrom } from '../../composition/config.js';
import { InjectionTokens } from '../../composition/injection-tokens.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

const writer = 'deliveries-writer-token-0123456789';
const reader = 'deliveries-reader-token-0123456789';

describe('webhooks over HTTP: the delivery routes and the OpenAPI webhooks section', function () {
  this.timeout(20_000);
  let receiver: WebhookReceiver;
  let built: BuiltServer;
  const call = (method: string, path: string, token = writer, body?: unknown) =>
    fetch(`${built.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    const container = rootContainer.createChildContainer();
    container.register<ServerLog>(InjectionTokens.Log, { useValue: { info: () => {}, warn: () => {}, error: () => {} } });
    built = await buildServer(
      configFrom([], {
        PORT: '0',
        PLANT_STORE_STORAGE: 'memory',
        PLANT_STORE_TOKENS: `${writer},${reader} plants:read`,
        PLANT_STORE_BASE_PATH: '/v1',
        PLANT_STORE_WEBHOOK_URLS: receiver.url,
        PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '50ms',
        PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
      container,
    );
  });
  afterEach(async () => {
    await built?.close(1000);
    await receiver.close();
  });

  it('GET shows pending and failed deliveries with their last status; POST retry makes them pending again', async () => {
    receiver.answerWith({ status: 500 }, { status: 502 });
    expect((await call('POST', '/v1/plants', writer, { id: 1, name: 'Fern' })).status).to.equal(200);
    let state: any;
    for (let i = 0; i < 200; i++) {
      state = await (await call('GET', '/v1/webhooks/deliveries', reader)).json();
      if (state.failed.length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(state.pending).to.equal(0);
    expect(state.failed).to.have.length(1);
    expect(state.failed[0]).to.include({ plantId: 1, endpoint: receiver.url, type: 'plant.created', attempts: 2, lastStatus: 502 });

    expect((await call('POST', '/v1/webhooks/deliveries/retry', reader)).status, 'retrying needs plants:write').to.equal(403);
    expect((await call('GET', '/v1/webhooks/deliveries', 'no-such-token-0123456789abcdef')).status).to.equal(401);
    const retried = await call('POST', '/v1/webhooks/deliveries/retry', writer);
    expect(await retried.json()).to.deep.equal({ retried: 1 });
    await waitFor(() => (receiver.received.length === 3 ? true : undefined));
  });

  it('the served document is valid OpenAPI 3.1 with a webhooks section (events, bodies, signature headers) and the delivery routes', async () => {
    const document = (await (await fetch(`${built.server.url}/openapi.json`)).json()) as any;
    const result = await new Validator().validate(document);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    expect(Object.keys(document.webhooks)).to.deep.equal(['/plant/webhook', 'plant.deleted']);
    const created = document.webhooks['/plant/webhook'].post;
    expect(created.parameters.map((p: any) => p.name)).to.deep.equal(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-event-type', 'user-agent']);
    expect(created.requestBody.content['application/json'].schema.$ref).to.equal('#/components/schemas/Plant');
    expect(document.paths).to.include.keys('/v1/webhooks/deliveries', '/v1/webhooks/deliveries/retry');
    expect(document.paths['/v1/webhooks/deliveries'].get.security).to.deep.equal([{ bearerAuth: ['plants:read'] }]);
  });
});
