import { expect } from 'chai';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { TalliedCounter } from '../../adapters/metrics/tallied-counter.js';
import { TalliedHistogram } from '../../adapters/metrics/tallied-histogram.js';

const buckets = [0.001, 0.01, 0.1, 1, 10];
const labelSets = [{ route: '/a' }, { route: '/b' }, { route: 'un"quoted\\' }] as const;
const observation = fc.tuple(fc.integer({ min: 0, max: labelSets.length - 1 }), fc.oneof(fc.double({ min: 0, max: 20, noNaN: true }), fc.constantFrom(...buckets, 0)));

// Each pair of metrics has one name, in two registries: the one prom-client keeps and the tallied one.

describe('metrics tallied outside prom-client (cheap on every request) read as prom-client writes its own', () => {
  it('a TalliedHistogram exposes exactly what a prom-client Histogram does for the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const own = new Registry();
        const tallied = new Registry();
        const reference = new Histogram({ name: 'call_seconds', help: 'h', labelNames: ['route'], buckets, registers: [own] });
        const histogram = new TalliedHistogram({ name: 'call_seconds', help: 'h', labelNames: ['route'], buckets, registers: [tallied] });
        const series = labelSets.map((labels) => histogram.series(labels));
        for (const labels of labelSets) reference.zero(labels);
        for (const [which, value] of observations) {
          reference.observe(labelSets[which]!, value);
          series[which]!.observe(value);
        }
        expect(await tallied.metrics()).to.equal(await own.metrics());
        // And as JSON (getMetricsAsJSON, Registry.merge), exemplars aside: none are kept.
        const plain = ({ values }: Awaited<ReturnType<Histogram['get']>>) => values.map(({ metricName, labels, value }) => ({ metricName, labels, value }));
        expect(plain(await histogram.get())).to.deep.equal(plain(await reference.get()));
      }),
    );
  });

  it('a TalliedCounter exposes what a prom-client Counter does, series at 0 before any count, across reads and a reset', async () => {
    const own = new Registry();
    const tallied = new Registry();
    const reference = new Counter({ name: 'calls_total', help: 'h', labelNames: ['route'], registers: [own] });
    const counter = new TalliedCounter({ name: 'calls_total', help: 'h', labelNames: ['route'], registers: [tallied] });
    const series = labelSets.map((labels) => counter.series(labels));
    for (const labels of labelSets) reference.inc(labels, 0);
    expect(await tallied.metrics()).to.equal(await own.metrics());
    for (const [which, times] of [[0, 3], [2, 1], [0, 2]] as const) {
      for (let i = 0; i < times; i++) {
        reference.inc(labelSets[which]);
        series[which]!.inc();
      }
      // Read between counts: what was taken in before is not taken in twice.
      expect(await tallied.metrics()).to.equal(await own.metrics());
    }
    tallied.resetMetrics();
    series[1]!.inc();
    expect((await counter.get()).values.map((value) => value.value)).to.deep.equal([0, 1, 0]);
  });

  it('a reset empties a TalliedHistogram and keeps its series', async () => {
    const registry = new Registry();
    const histogram = new TalliedHistogram({ name: 'h_seconds', help: 'h', buckets, registers: [registry] });
    const series = histogram.series({});
    series.observe(0.5);
    registry.resetMetrics();
    series.observe(5);
    const values = (await histogram.get()).values;
    expect(values.find((value) => value.metricName === 'h_seconds_count')?.value).to.equal(1);
    expect(values.find((value) => value.metricName === 'h_seconds_sum')?.value).to.equal(5);
  });
});
