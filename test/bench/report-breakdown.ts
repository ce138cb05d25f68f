import { BREAKDOWN_STEPS, type Breakdown } from './breakdown-section.js';
import { decimal, integer, ratio, withRange } from './format.js';
import { failures } from './run-figures.js';
import type { Series } from './sections.js';
import { spread } from './stats.js';

const perRequestMicros = (series: Series) => spread(series.runs.map((r) => 1e6 / r.requestsPerCpuSecond));

/** One row per step, what each step costs per request; the last row is the ceiling. */
function stepTable(series: readonly Series[]): string[] {
  const out = [
    '| server | what differs | req per server CPU-second, median (min–max) | CPU per request | against the ceiling | cost of the step | failed responses |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const ceiling = series[series.length - 1]!;
  for (const [index, row] of series.entries()) {
    const rate = spread(row.runs.map((r) => r.requestsPerCpuSecond));
    const micros = perRequestMicros(row).median;
    const below = series[index + 1];
    const step = below === undefined ? '–' : `${decimal(micros - perRequestMicros(below).median)} µs`;
    const versus = spread(row.runs.map((r, i) => r.requestsPerCpuSecond / ceiling.runs[i]!.requestsPerCpuSecond)).median;
    const failed = failures(row.runs);
    const what = BREAKDOWN_STEPS.find((s) => s.name === row.contender)?.what ?? '';
    out.push(
      `| ${row.contender} | ${what} | ${withRange(rate, integer)} | ${decimal(micros)} µs | ${ratio(versus)} | ${step} | ${failed === 0 ? '0' : `⚠ ${failed}`} |`,
    );
  }
  return out;
}

/** The "where the time goes" section: W3 step by step, then W1 and W2 against the Koa floor. */
export function renderBreakdown(breakdown: Breakdown, seconds: number): string[] {
  return [
    '## Where the time of a request goes',
    '',
    `The same servers up side by side, interleaved rounds of ${seconds} s. "CPU per request" is server CPU time (user + system) ÷ requests; "cost of the step" is how much more CPU the row needs than the row below it (medians); "against the ceiling" is the median of the round-by-round ratios.`,
    '',
    `### W3 \`GET /plants/{id}\`, feature by feature`,
    '',
    `This server with its features switched off one by one through its own settings, a bare Koa app with only the bearer check, and the node:http ceiling (${breakdown.W3.length} servers).`,
    '',
    ...stepTable(breakdown.W3),
    '',
    'Between "request log and failed-auth limit off" and "Koa floor" lie the features no setting turns off: request ids, the security headers, the error mapping, validation of the path id (yup), the use case and the repository with its copy. Between the Koa floor and the ceiling lies Koa itself (context objects, router, response helpers).',
    '',
    '### W1 `GET /plants?limit=100`: this server, Koa floor, ceiling',
    '',
    'The Koa floor answers a page as a slice of a sorted array with its Link header, and nothing else: its row against the ceiling is what Koa with @koa/router leaves of the ceiling on this workload before any feature is added. From this server down to it is everything the service adds (request log, request ids, headers, error mapping, validation, use case, repository copies).',
    '',
    ...stepTable(breakdown.W1),
    '',
    '### W2 `POST /plants`: this server, Koa floor, ceiling',
    '',
    'The Koa floor reads the body as this server does (koa-body, then JSON.parse) and inserts into a Map; this server adds validation, the use case, the repository, the event, and what it adds to every request.',
    '',
    ...stepTable(breakdown.W2),
    '',
  ];
}
