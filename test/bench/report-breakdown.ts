import { BREAKDOWN_STEPS } from './breakdown-section.js';
import { decimal, integer, ratio, withRange } from './format.js';
import { failures } from './run-figures.js';
import type { Series } from './sections.js';
import { spread } from './stats.js';

const perRequestMicros = (series: Series) => spread(series.runs.map((r) => 1e6 / r.requestsPerCpuSecond));

/** The "where the time goes" section: one row per step, what each step costs per request. */
export function renderBreakdown(series: readonly Series[], seconds: number): string[] {
  const out: string[] = ['## Where the time of a request goes (W3)', ''];
  out.push(
    `W3 \`GET /plants/{id}\` on this server with its features switched off one by one through its own settings, on a bare Koa app with only the bearer check, and on the node:http ceiling — ${series.length} servers up side by side, interleaved rounds of ${seconds} s. "CPU per request" is server CPU time (user + system) ÷ requests; "cost of the step" is how much more CPU the row needs than the row below it (medians).`,
    '',
    '| server | what differs | req per server CPU-second, median (min–max) | CPU per request | against the ceiling | cost of the step | failed responses |',
    '|---|---|---:|---:|---:|---:|---:|',
  );
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
  out.push(
    '',
    'Between "request log and failed-auth limit off" and "Koa floor" lie the features no setting turns off: request ids, the security headers, the error mapping, validation of the path id (yup), the use case and the repository with its copy. Between the Koa floor and the ceiling lies Koa itself (context objects, router, response helpers).',
    '',
  );
  return out;
}
