import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMarkdown } from '../docs/markdown.js';
import { startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import type { FerretDb } from '../support/ferretdb.js';
import { HttpClient } from '../support/http-client.js';
import { inCi } from '../support/in-ci.cjs';
import { withDatabase } from '../support/mongo-uri.js';
import { HOW_TO_GET_PROMETHEUS, prometheusTools, promtool, PrometheusServer } from '../support/prometheus.js';
import { tempDir } from '../support/temp-dir.js';
import { requireDedicatedFerretDb } from '../support/test-database.js';
import { TEST_WEBHOOK_SECRET, WebhookReceiver } from '../support/webhook-receiver.js';

const token = 'alert-test-token-0123456789abcdef';
const tools = prometheusTools();

/** The alert rules exactly as docs/metrics.md gives them. */
function documentedRules(): string {
  const block = readMarkdown('docs/metrics.md').blocks.find((candidate) => candidate.marker.startsWith('alert rules'));
  if (block === undefined) throw new Error('docs/metrics.md has no block marked <!-- alert rules … -->');
  return block.code;
}

/** The same rules with every `for:` one second, so a test sees them fire within seconds: the expressions are untouched. */
const quick = (rules: string) => rules.replace(/^(\s*for:\s*)\S+\s*$/gm, '$11s');

const titles = {
  check: 'the documented alert rules pass promtool check rules',
  webhooks: 'PlantStoreWebhookDeliveriesFailing fires while the receiver answers 500 (and the storage alert does not)',
  storage: 'PlantStoreStorageUnavailable fires once the MongoDB server is killed',
};

describe('the documented alert rules, in a real Prometheus', function () {
  this.timeout(120_000);

  if (tools === undefined && !inCi) {
    for (const title of Object.values(titles)) it(`${title} — pending: no prometheus and promtool on the PATH (${HOW_TO_GET_PROMETHEUS})`);
    return;
  }
  const needTools = () => {
    if (tools === undefined) throw new Error(`CI needs prometheus and promtool: ${HOW_TO_GET_PROMETHEUS}`);
    return tools;
  };

  let server: CliServer | undefined;
  let prometheus: PrometheusServer | undefined;
  afterEach(async () => {
    await prometheus?.stop();
    await server?.stop('SIGKILL');
    prometheus = server = undefined;
  });

  /** Waits until `name` is firing, making a request now and then so there is something to count. */
  async function firing(name: string, load: () => Promise<unknown>): Promise<void> {
    await eventually(
      async () => {
        await load();
        return (await prometheus!.alerts()).some((alert) => alert.labels['alertname'] === name && alert.state === 'firing');
      },
      { what: `${name} to fire`, timeoutMs: 60_000, intervalMs: 250, context: async () => `alerts: ${JSON.stringify(await prometheus!.alerts())}\n${prometheus!.log()}` },
    );
  }

  const alertNames = async () => (await prometheus!.alerts()).map((alert) => alert.labels['alertname']);

  it(titles.check, async () => {
    using dir = tempDir('plant-store-rules-');
    const file = join(dir.path, 'rules.yml');
    writeFileSync(file, documentedRules());
    const checked = await promtool(needTools(), ['check', 'rules', file]);
    expect(checked.status, checked.output).to.equal(0);
    expect(checked.output).to.include('SUCCESS: 2 rules found');
  });

  it(titles.webhooks, async () => {
    const receiver = await WebhookReceiver.start();
    try {
      receiver.answerWith(...Array.from({ length: 10_000 }, () => ({ status: 500 })));
      server = await startCli({
        PLANT_STORE_TOKENS: token,
        PLANT_STORE_STORAGE: 'memory',
        PLANT_STORE_METRICS: 'on',
        PLANT_STORE_WEBHOOK_URLS: receiver.url,
        PLANT_STORE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
        PLANT_STORE_WEBHOOK_ALLOW_PRIVATE: 'true',
        PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
      });
      const api = await HttpClient.connect(server.url, token);
      prometheus = await PrometheusServer.start(needTools(), { targets: [new URL(server.url).host], rules: quick(documentedRules()) });
      let id = 0;
      await firing('PlantStoreWebhookDeliveriesFailing', () => api.create(++id));
      expect(await alertNames()).not.to.include('PlantStoreStorageUnavailable');
      expect(receiver.received.length).to.be.greaterThan(0);
    } finally {
      await receiver.close();
    }
  });

  describe('with MongoDB storage', () => {
    let database: FerretDb | undefined;
    before(async function () {
      needTools();
      database = await requireDedicatedFerretDb(this);
    });
    after(async () => database?.dispose());

    it(titles.storage, async () => {
      server = await startCli({
        PLANT_STORE_TOKENS: token,
        MONGODB_URI: withDatabase(database!.uri, 'metrics_alerts'),
        PLANT_STORE_STORAGE_TIMEOUT_MS: '1000',
        PLANT_STORE_METRICS: 'on',
      });
      const api = await HttpClient.connect(server.url, token);
      prometheus = await PrometheusServer.start(needTools(), { targets: [new URL(server.url).host], rules: quick(documentedRules()) });
      expect((await api.create(1)).status).to.equal(200);
      await database!.kill();
      try {
        // What a load balancer and a client would send meanwhile: both answer 503.
        await firing('PlantStoreStorageUnavailable', async () => {
          const [ready, listed] = await Promise.all([api.get(api.root('/readyz')), api.get('/plants')]);
          expect([ready.status, listed.status]).to.deep.equal([503, 503]);
        });
        expect(await alertNames()).not.to.include('PlantStoreWebhookDeliveriesFailing');
      } finally {
        await database!.start();
      }
    });
  });
});
