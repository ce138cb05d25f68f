import { expect } from 'chai';
import { createPlantStore, MemoryPlantRepository, type PlantStore } from '../../composition/index.js';
import { isNonPublicAddress } from '../../adapters/webhooks/address-guard.js';
import { eventually } from '../support/eventually.js';
import { quietLog } from '../support/quiet-log.js';
import { recordingLog } from '../support/recording-log.js';
import { ManualDelivery } from '../support/manual-delivery.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';

describe('webhooks: the guard against reaching internal services (SSRF)', function () {
  this.timeout(15_000);

  it('classifies loopback, private, link-local, unique-local, unspecified, multicast and mapped addresses as non-public', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', 'not an address']) {
      expect(isNonPublicAddress(address), address).to.equal(true);
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isNonPublicAddress(address), address).to.equal(false);
    }
  });

  describe('at start-up', () => {
    const urls = ['http://127.0.0.1:9/hook?key=s3cret', 'http://localhost:8080/hook', 'http://[::1]/hook', 'http://hooks.localhost/in', 'https://hooks.example.com/in', 'http://93.184.215.14/in'];

    it('warns once per endpoint that every delivery will be refused, naming the host (never the path or query) and the allowance', async () => {
      const log = recordingLog();
      const store = await createPlantStore({ log, webhooks: { urls, secret: TEST_WEBHOOK_SECRET } });
      await store.close();
      const warnings = log.lines.filter((line) => line.level === 'warn');
      expect(warnings.map((line) => line.fields['endpoint'])).to.deep.equal(['127.0.0.1:9', 'localhost:8080', '[::1]', 'hooks.localhost']);
      for (const line of warnings) {
        expect(line.message).to.match(/will be refused/).and.match(/--webhook-allow-private/).and.match(/PLANT_STORE_WEBHOOK_ALLOW_PRIVATE/);
        expect(line.message).not.to.match(/s3cret|\/hook/);
      }
    });

    it('says nothing when private endpoints are allowed', async () => {
      const log = recordingLog();
      const store = await createPlantStore({ log, webhooks: { urls, secret: TEST_WEBHOOK_SECRET, allowPrivate: true } });
      await store.close();
      expect(log.lines.filter((line) => line.level === 'warn')).to.deep.equal([]);
    });
  });

  describe('at delivery time, without the allowance', () => {
    let receiver: WebhookReceiver;
    let store: PlantStore | undefined;
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
    });
    afterEach(async () => {
      await store?.close();
      store = undefined;
      await receiver.close();
    });

    // The receiver listens on 127.0.0.1: each URL below reaches it unless refused. Each round
    // runs when the test says, on a clock it moves past the retry's delay.
    for (const [what, host] of [
      ['an IPv4 loopback literal', '127.0.0.1'],
      ['a host name resolving to loopback', 'localhost'],
      ['an IPv4-mapped IPv6 literal', '[::ffff:127.0.0.1]'],
    ] as const) {
      it(`refuses ${what} (${host}): failed, nothing sent, the reason kept`, async () => {
        const url = `http://${host}:${receiver.port}/hook`;
        const delivery = new ManualDelivery({ repository: new MemoryPlantRepository(), endpoints: [url], retrySchedule: [50], allowPrivate: false });
        try {
          await delivery.create({ id: 1, name: 'Fern' });
          await delivery.round();
          await delivery.after(50);
          const state = await delivery.state();
          expect(receiver.received).to.deep.equal([]);
          expect(state.failed[0]!.lastError).to.match(/non-public address/);
          expect(state.failed[0]!.attempts).to.equal(2);
        } finally {
          delivery.close();
        }
      });
    }

    it('refuses 10.x and 169.254.x literals without connecting', async () => {
      store = await createPlantStore({
        log: quietLog(),
        webhooks: { urls: ['http://10.0.0.1:9/hook', 'http://169.254.169.254/latest'], secret: TEST_WEBHOOK_SECRET, retryScheduleMs: [] },
      });
      await store.create({ id: 1, name: 'Fern' });
      const state = await pollFailed(store, 2);
      expect(state.failed.map((failure) => failure.lastError).sort()).to.deep.equal([
        '10.0.0.1 is a non-public address (PLANT_STORE_WEBHOOK_ALLOW_PRIVATE allows it)',
        '169.254.169.254 is a non-public address (PLANT_STORE_WEBHOOK_ALLOW_PRIVATE allows it)',
      ]);
    });

    it('with the allowance, localhost is delivered to', async () => {
      store = await createPlantStore({ log: quietLog(), webhooks: { urls: [`http://localhost:${receiver.port}/hook`], secret: TEST_WEBHOOK_SECRET, allowPrivate: true } });
      await store.create({ id: 1, name: 'Fern' });
      await eventually(() => receiver.received.length > 0, { timeoutMs: 5000 });
      expect(receiver.received.map((hook) => hook.body)).to.deep.equal([{ id: 1, name: 'Fern' }]);
    });
  });
});

async function pollFailed(store: PlantStore, count = 1) {
  return eventually(
    async () => {
      const state = await store.deliveryState();
      return state.failed.length >= count && state;
    },
    { what: `${count} failed deliveries`, context: async () => `delivery state: ${JSON.stringify(await store.deliveryState())}`, timeoutMs: 8000 },
  );
}
