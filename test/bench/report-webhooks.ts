/** The webhooks section's part of BENCHMARKS.md, and its target (10). */
import { decimal, integer, ratio } from './format.js';
import type { Series } from './sections.js';
import type { TargetLine } from './targets.js';
import type { WebhookResult } from './webhooks-section.js';

const MIN_WEBHOOK_VS_PLAIN = 0.7;

const title = `W2 on disk with one webhook endpoint ≥ ${MIN_WEBHOOK_VS_PLAIN}× without (throughput), deliveries keeping up; delivery lag reported`;

/** Markdown for the section; `table` renders a series table as the rest of the page does. */
export function renderWebhooks(webhooks: WebhookResult | undefined, table: (series: readonly Series[], firstColumn: string) => string[]): string[] {
  const out = ['## Webhooks', ''];
  if (webhooks === undefined) return [...out, 'Not run.', ''];
  const { lag } = webhooks;
  out.push(
    'W2 (creates) on disk storage, the same server without webhooks and with one endpoint: a receiver in a process of its own answering 200 at once, interleaved. After each run of the webhook server the section waits until every acknowledged create has reached the receiver and the outbox is empty; the server CPU spent on that is counted in the per-CPU-second figure below (the table shows the run alone).',
    '',
    ...table(webhooks.series, 'server'),
    '',
    `- Creates per server CPU-second with the endpoint, deliveries included: ${ratio(webhooks.cpuRatio)} of those without.`,
    `- Delivery lag from the 200 the load generator got to the request the receiver got (one clock): p50 ${decimal(lag.p50Ms)} ms, p99 ${decimal(lag.p99Ms)} ms; ${integer(lag.delivered)} of ${integer(lag.acknowledged)} acknowledged creates delivered.`,
    `- Most acknowledged creates still undelivered when a run ended: ${integer(webhooks.largestBacklog)}${webhooks.keptUp ? ' (within a second of creates: delivery kept up)' : ' (more than a second of creates: delivery fell behind, so the throughput with the endpoint is not one the server sustains)'}.`,
    '',
  );
  return out;
}

export function webhooksTarget(webhooks: WebhookResult | undefined): TargetLine {
  if (webhooks === undefined) return { verdict: 'SKIP', text: `10. ${title} — webhooks section not run` };
  const ok = webhooks.ratio >= MIN_WEBHOOK_VS_PLAIN && webhooks.keptUp;
  const behind = webhooks.keptUp ? '' : `, but deliveries fell behind (up to ${integer(webhooks.largestBacklog)} acknowledged creates undelivered when a run ended)`;
  return {
    verdict: ok ? 'PASS' : 'FAIL',
    text: `10. ${title}: ${ratio(webhooks.ratio)}${behind} ${ok ? '✓' : '✗'}; ${ratio(webhooks.cpuRatio)} per server CPU-second, deliveries included; lag p50 ${decimal(webhooks.lag.p50Ms)} ms, p99 ${decimal(webhooks.lag.p99Ms)} ms`,
  };
}
