import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const writer = 'deliveries-writer-token-0123456789';
const reader = 'deliveries-reader-token-0123456789';

describe('webhooks over HTTP: the delivery routes and the OpenAPI webhooks section', function () {
  this.timeout(20_000);
  let receiver: WebhookReceiver;
  let server: HttpServer;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    server = await startHttpServer(undefined, {
      basePath: '/v1',
      tokens: [writer, `${reader} plants:read`],
      env: {
        PLANT_STORE_WEBHOOK_URLS: receiver.url,
        PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '50ms',
        PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
  });
  afterEach(async () => {
    await server?.close();
    await receiver.close();
  });

  it('GET shows pending and failed deliveries with their last status; POST retry makes them pending again', async () => {
    receiver.answerWith({ status: 500 }, { status: 502 });
    const { http } = server;
    expect((await http.create(1, 'Fern')).status).to.equal(200);
    const state = await eventually(async () => {
      const answer = (await http.get('/webhooks/deliveries', { token: reader })).body;
      return answer.failed.length === 1 && answer;
    });
    expect(state.pending).to.equal(0);
    expect(state.failed).to.have.length(1);
    expect(state.failed[0]).to.include({ plantId: 1, endpoint: receiver.url, type: 'plant.created', attempts: 2, lastStatus: 502 });

    expect((await http.post('/webhooks/deliveries/retry', { token: reader })).status, 'retrying needs plants:write').to.equal(403);
    expect((await http.get('/webhooks/deliveries', { token: 'no-such-token-0123456789abcdef' })).status).to.equal(401);
    const retried = await http.post('/webhooks/deliveries/retry', { token: writer });
    expect(retried.body).to.deep.equal({ retried: 1 });
    await eventually(() => receiver.received.length === 3);
  });

  it('the served document is valid OpenAPI 3.1 with a webhooks section (events, bodies, signature headers) and the delivery routes', async () => {
    const document = server.openapi;
    const result = await new Validator().validate(document);
    expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
    expect(Object.keys(document.webhooks)).to.deep.equal(['/plant/webhook', '/plant/deleted/webhook']);
    const created = document.webhooks['/plant/webhook'].post;
    expect(created.parameters.map((p: any) => p.name)).to.deep.equal(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-event-type', 'plant-store-sandbox', 'user-agent']);
    expect(created.requestBody.content['application/json'].schema.$ref).to.equal('#/components/schemas/Plant');
    expect(document.paths).to.include.keys('/v1/webhooks/deliveries', '/v1/webhooks/deliveries/retry');
    expect(document.paths['/v1/webhooks/deliveries'].get.security).to.deep.equal([{ bearerAuth: ['plants:read'] }]);
  });
});
