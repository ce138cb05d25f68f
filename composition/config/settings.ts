import { string } from 'yup';
import { accessOptionsFrom, accessSettings } from './access-settings.js';
import { feedOptionsFrom, feedSettings } from './feed-settings.js';
import { httpOptionsFrom, httpSettings } from './http-settings.js';
import { setting, type Setting } from './setting.js';
import { sandboxOptionsFrom, sandboxSettings } from './sandbox-settings.js';
import { serverOptionsFrom, serverSettings } from './server-settings.js';
import { storageOptionFrom, storageSettings } from './storage-settings.js';
import { webhookOptionsFrom, webhookSettings } from './webhook-settings.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const logSettings = {
  logLevel: setting(
    { option: 'log.level', flag: 'log-level', env: 'PLANT_STORE_LOG_LEVEL', default: 'info', help: LOG_LEVELS.join(', ') },
    string<LogLevel>().required().oneOf(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`),
  ),
};

/**
 * The settings table, one group per branch of the options tree: its rows, and how their
 * values make that branch (or why they disagree). A new setting is a row here and the code
 * that reads its option; `--help`, parsing and refusals follow from the row.
 */
export const settingGroups = {
  http: { rows: httpSettings, build: httpOptionsFrom },
  access: { rows: accessSettings, build: accessOptionsFrom },
  storage: { rows: storageSettings, build: storageOptionFrom },
  webhooks: { rows: webhookSettings, build: webhookOptionsFrom },
  sandboxes: { rows: sandboxSettings, build: sandboxOptionsFrom },
  feed: { rows: feedSettings, build: feedOptionsFrom },
  server: { rows: serverSettings, build: serverOptionsFrom },
  log: { rows: logSettings, build: (v: { logLevel: LogLevel }) => ({ value: { level: v.logLevel } }) },
};

/** Every row, in table order, by name. */
export const settings = { ...httpSettings, ...accessSettings, ...storageSettings, ...webhookSettings, ...sandboxSettings, ...feedSettings, ...serverSettings, ...logSettings };
export type SettingName = keyof typeof settings;

/** Every row, for `--help` and the flag parser. */
export const settingRows: readonly Setting<unknown>[] = Object.values(settings);
