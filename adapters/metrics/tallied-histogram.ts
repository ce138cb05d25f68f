import { Histogram, type Aggregator, type HistogramConfiguration } from 'prom-client';

/** One line of a histogram as prom-client 15 writes it: its own labels (`le`) and the series' (shared). */
interface HistogramLine {
  readonly metricName: string;
  readonly labels: Record<string, string | number>;
  readonly sharedLabels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The observations of one set of label values: counts per bucket, their sum and number. */
export class HistogramSeries {
  /** Per bucket, not cumulative; the last one counts values above every bound. */
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const { bounds } = this;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    this.counts[bucket]!++;
    this.sum += value;
    this.count++;
  }

  /** Cumulative buckets, then sum and count. */
  lines(name: string): HistogramLine[] {
    const sharedLabels = this.labels;
    const lines: HistogramLine[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += this.counts[index]!;
      lines.push({ metricName: `${name}_bucket`, labels: { le: bound }, sharedLabels, value: cumulative });
    });
    lines.push(
      { metricName: `${name}_bucket`, labels: { le: '+Inf' }, sharedLabels, value: this.count },
      { metricName: `${name}_sum`, labels: {}, sharedLabels, value: this.sum },
      { metricName: `${name}_count`, labels: {}, sharedLabels, value: this.count },
    );
    return lines;
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/**
 * A prom-client Histogram whose observations cost a loop over the bounds and three additions:
 * a caller keeps the series of its label values (`series(labels)`) and observes on it.
 * prom-client's labelled observe hashes and checks the labels at every call (about 0.3 µs),
 * a measurable share of a request when it runs on every request and every storage call.
 * prom-client reads the series through getForPromString, which its registry calls to write
 * the text format and its get() builds on; prom-client's own `observe` is not used.
 */
export class TalliedHistogram<L extends string> extends Histogram<L> {
  private readonly tallies: HistogramSeries[] = [];
  private readonly bounds: readonly number[];
  private readonly configuration: HistogramConfiguration<L>;

  constructor(given: Omit<HistogramConfiguration<L>, 'buckets'> & { readonly buckets: readonly number[] }) {
    const configuration = { ...given, buckets: [...given.buckets].sort((a, b) => a - b) };
    super(configuration);
    this.configuration = configuration;
    this.bounds = configuration.buckets;
  }

  /** A new series for these label values, shown at zero until observed: keep it, rather than asking per observation. */
  series(labels: Readonly<Record<L, string>>): HistogramSeries {
    const series = new HistogramSeries(labels, this.bounds);
    this.tallies.push(series);
    return series;
  }

  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: Aggregator; values: HistogramLine[] }> {
    const { name, help, aggregator = 'sum' } = this.configuration;
    return { name, help, type: 'histogram', aggregator, values: this.tallies.flatMap((series) => series.lines(name)) };
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls this too, before this class's fields exist.
    for (const series of this.tallies ?? []) series.clear();
  }
}
