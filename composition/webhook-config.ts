import type { PlantEventType } from '../core/index.js';
import type { SettingValues } from './settings.js';
import { DEFAULT_WEBHOOK_EVENTS, type WebhookOptions } from './webhook-options.js';

type WebhookSettingName = 'webhookUrls' | 'webhookSecret' | 'webhookEvents' | 'webhookRetrySchedule' | 'webhookTimeout' | 'webhookAllowPrivate';

/** Undefined without webhook URLs; the delivery settings with them; else one line saying what is missing. */
export function webhooksFrom(values: Pick<SettingValues, WebhookSettingName>, label: (name: WebhookSettingName) => string): WebhookOptions | undefined | string {
  if (values.webhookUrls.length === 0) return undefined;
  if (values.webhookSecret === undefined) return `${label('webhookUrls')} is set but ${label('webhookSecret')} is not: webhooks must be signed`;
  return {
    urls: values.webhookUrls,
    secret: values.webhookSecret,
    events: values.webhookEvents.length === 0 ? DEFAULT_WEBHOOK_EVENTS : [...new Set(values.webhookEvents as PlantEventType[])],
    retryScheduleMs: values.webhookRetrySchedule,
    timeoutMs: values.webhookTimeout,
    allowPrivate: values.webhookAllowPrivate,
  };
}
