import { mixed } from 'yup';
import type { PlantEventType } from '../../core/index.js';
import { ConfigError } from './config-error.js';
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_WEBHOOK_EVENTS, DEFAULT_WEBHOOK_TIMEOUT_MS, parseRetrySchedule, secretProblem, urlProblem, WEBHOOK_EVENT_TYPES, type WebhookOptions } from '../store/webhook-options.js';
import { boolean, entriesOf, integer, labelOf, list, setting, type Setting } from './setting.js';

/** Where changes are delivered: the `webhooks` option (none without URLs). */
export const webhookSettings = {
  webhookUrls: setting(
    { option: 'webhooks.urls', flag: 'webhook-urls', env: 'PLANT_STORE_WEBHOOK_URLS', default: '', help: 'comma-separated endpoint URLs receiving a signed POST per event' },
    mixed<string[]>()
      .defined()
      .transform((_, raw: string) => entriesOf(raw))
      .test('urls', (urls, context) => {
        const problem = (urls ?? []).map(urlProblem).find((p) => p !== undefined);
        return problem === undefined || context.createError({ message: `entries must be http(s) URLs: ${problem}` });
      }),
  ),
  webhookSecret: {
    option: 'webhooks.secret',
    flag: '',
    env: 'PLANT_STORE_WEBHOOK_SECRET',
    default: '',
    help: 'Standard Webhooks signing secret whsec_<base64>, needed with webhook URLs (no flag: command lines are public)',
    // A refusal never quotes the secret.
    parse: (text: string): string | undefined => {
      if (text === '') return undefined;
      const problem = secretProblem(text);
      if (problem !== undefined) throw new ConfigError(problem);
      return text;
    },
  } satisfies Setting<string | undefined>,
  webhookEvents: setting(
    { option: 'webhooks.events', flag: 'webhook-events', env: 'PLANT_STORE_WEBHOOK_EVENTS', default: DEFAULT_WEBHOOK_EVENTS.join(','), help: `events sent to the webhook URLs: ${WEBHOOK_EVENT_TYPES.join(', ')}` },
    list(new RegExp(`^(${WEBHOOK_EVENT_TYPES.join('|').replaceAll('.', '\\.')})$`), `entries must be ${WEBHOOK_EVENT_TYPES.join(' or ')}`),
  ),
  webhookRetrySchedule: setting(
    { option: 'webhooks.retryScheduleMs', flag: 'webhook-retry-schedule', env: 'PLANT_STORE_WEBHOOK_RETRY_SCHEDULE', default: DEFAULT_RETRY_SCHEDULE, help: 'delays between attempts (ms, s, m, h); failed after the last' },
    mixed<number[]>()
      .transform((_, raw: string) => parseRetrySchedule(raw))
      .defined('must be delays like 5s,5m,2h (a number and ms, s, m or h, at most a week each)'),
  ),
  webhookTimeout: setting(
    { option: 'webhooks.timeoutMs', flag: 'webhook-timeout-ms', env: 'PLANT_STORE_WEBHOOK_TIMEOUT_MS', default: String(DEFAULT_WEBHOOK_TIMEOUT_MS), help: 'longest wait for an endpoint per attempt' },
    integer(100, 600_000),
  ),
  webhookAllowPrivate: setting(
    { option: 'webhooks.allowPrivate', flag: 'webhook-allow-private', env: 'PLANT_STORE_WEBHOOK_ALLOW_PRIVATE', default: 'false', help: 'allow endpoints on loopback, private and link-local addresses (true or false)' },
    boolean(),
  ),
};

type Values = { [K in keyof typeof webhookSettings]: ReturnType<(typeof webhookSettings)[K]['parse']> };

/** The `webhooks` option: none without URLs; else the delivery settings, or why they cannot work. */
export function webhookOptionsFrom(v: Values): { readonly value: WebhookOptions | undefined } | string {
  if (v.webhookUrls.length === 0) return { value: undefined };
  if (v.webhookSecret === undefined) return `${labelOf(webhookSettings.webhookUrls)} is set but ${labelOf(webhookSettings.webhookSecret)} is not: webhooks must be signed`;
  return {
    value: {
      urls: v.webhookUrls,
      secret: v.webhookSecret,
      events: v.webhookEvents.length === 0 ? DEFAULT_WEBHOOK_EVENTS : [...new Set(v.webhookEvents as PlantEventType[])],
      retryScheduleMs: v.webhookRetrySchedule,
      timeoutMs: v.webhookTimeout,
      allowPrivate: v.webhookAllowPrivate,
    },
  };
}
