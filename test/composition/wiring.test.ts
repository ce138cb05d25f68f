import 'reflect-metadata';
import { expect } from 'chai';
import { container as rootContainer } from 'tsyringe';
import type { PendingDelivery, SentAttempt, WebhookTransport } from '../../core/index.js';
import { assembleStore } from '../../composition/store/assemble-store.js';
import { InjectionTokens } from '../../composition/store/injection-tokens.js';
import type { TransportFactory } from '../../composition/store/webhook-delivery.js';
import { eventually } from '../support/eventually.js';
import { memoryStorage, startHttpServer } from '../support/http-server.js';
import { ManualClock } from '../support/manual-clock.js';
import { recordingLog } from '../support/recording-log.js';
import { TEST_WEBHOOK_SECRET } from '../support/webhook-receiver.js';

/** Records each delivery instead of sending it; answers 200. */
class RecordingTransport implements WebhookTransport {
  readonly sent: PendingDelivery[] = [];
  closed = false;
  async send(delivery: PendingDelivery): Promise<SentAttempt> {
    this.sent.push(delivery);
    return { status: 200, durationMs: 1 };
  }
  close(): void {
    this.closed = true;
  }
}

const ENDPOINT = 'https://hooks.example.org/in';
// Far from the machine's time: a delivery made due by any other clock would not be due on it.
const T0 = Date.UTC(2001, 0, 1);

// createPlantStore and buildServer build a store by one path (assembleStore); a port a
// test registers replaces the default on both.
describe('wiring: one path from ports to a store', () => {
  it('a server sends with the transport and reads the clock registered in its container', async () => {
    const transport = new RecordingTransport();
    const clock = new ManualClock(T0);
    const server = await startHttpServer(memoryStorage, {
      env: { PLANT_STORE_WEBHOOK_URLS: ENDPOINT, PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET },
      register: (container) => {
        container.register<TransportFactory>(InjectionTokens.WebhookTransport, { useValue: () => transport });
        container.register(InjectionTokens.Clock, { useValue: clock });
      },
    });
    try {
      expect((await server.http.create(7, 'Fern')).status).to.equal(200);
      const [delivery] = await eventually(() => transport.sent.length === 1 && transport.sent);
      expect(delivery!.event.data).to.deep.equal({ id: 7, name: 'Fern' });
      expect(delivery!.endpoint).to.equal(ENDPOINT);
      expect(delivery!.createdAt, 'made on the registered clock').to.equal(T0);
    } finally {
      await server.close();
    }
    expect(transport.closed, 'closed with the store').to.equal(true);
  });

  it('an embedded store takes the same ports from a container: log, clock, transport, storage', async () => {
    const transport = new RecordingTransport();
    const log = recordingLog();
    const container = rootContainer.createChildContainer();
    container.register<TransportFactory>(InjectionTokens.WebhookTransport, { useValue: () => transport });
    container.register(InjectionTokens.Clock, { useValue: new ManualClock(T0) });
    container.register(InjectionTokens.Log, { useValue: log });
    const store = await assembleStore(container, { webhooks: { urls: [ENDPOINT], secret: TEST_WEBHOOK_SECRET } });
    try {
      store.subscribe(() => {
        throw new Error('listener broke');
      });
      await store.create({ id: 1, name: 'Ivy' });
      await eventually(() => transport.sent.length === 1);
      expect(transport.sent[0]!.createdAt).to.equal(T0);
      expect(log.lines.map((line) => [line.level, line.message])).to.deep.include(['error', 'an event listener failed']);
    } finally {
      await store.close();
    }
  });
});
