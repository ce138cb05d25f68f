import { parseArgs } from 'node:util';
import { ValidationError } from 'yup';
import { ConfigError } from './config-error.js';
import { labelOf, type Setting } from './setting.js';
import { settingGroups, settingRows, settings } from './settings.js';

type Groups = typeof settingGroups;
type BuiltValue<G extends keyof Groups> = Exclude<ReturnType<Groups[G]['build']>, string>['value'];

/**
 * Everything the server can be told at start-up: the options tree the library takes
 * (`http`, `access`, `storage`, `webhooks`, `sandboxes`, `feed`, `server`, `log`), every value typed, every default applied.
 */
export type ServerConfig = { readonly [G in keyof Groups]: BuiltValue<G> };

/** A configuration, or every problem found in it (each one line for the operator). */
export type ConfigResult = { readonly ok: true; readonly config: ServerConfig } | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Flags and environment to the options tree. Pure: reads nothing but its arguments (the
 * tokens file is read when the server is built). A flag wins over its variable; an empty
 * variable counts as unset. Each row is parsed once, here; then each group judges its
 * values together (the JWT settings go as three, a storage kind must fit the URI…).
 */
export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ConfigResult {
  const flags = readFlags(argv);
  if (typeof flags === 'string') return { ok: false, problems: [flags] };
  const problems: string[] = [];
  const values: Record<string, Record<string, unknown>> = {};
  for (const [group, { rows }] of Object.entries(settingGroups)) {
    values[group] = {};
    for (const [name, row] of Object.entries(rows) as [string, Setting<unknown>][]) {
      const fromFlag = row.flag ? flags[row.flag] : undefined;
      const fromEnv = env[row.env];
      const raw = typeof fromFlag === 'string' ? fromFlag : fromEnv !== undefined && fromEnv !== '' ? fromEnv : row.default;
      try {
        values[group]![name] = row.parse(raw);
      } catch (error) {
        if (error instanceof ValidationError) problems.push(`${labelOf(row)} ${error.errors[0]}, got "${raw}"`);
        else if (error instanceof ConfigError) problems.push(`${labelOf(row)}: ${error.message}`);
        else throw error;
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const config: Record<string, unknown> = {};
  for (const [group, { build }] of Object.entries(settingGroups)) {
    const built = (build as (v: unknown) => { value: unknown } | string)(values[group]);
    if (typeof built === 'string') problems.push(built);
    else config[group] = built.value;
  }
  if (problems.length === 0) problems.push(...acrossGroups(config as ServerConfig));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config: config as ServerConfig };
}

/** What two groups' values, each fine alone, refuse together. */
function acrossGroups(config: ServerConfig): string[] {
  // Memory storage is this process's own: a second process would keep other plants.
  if (config.server.workers > 1 && config.storage === undefined) {
    return [`${labelOf(settings.workers)} is ${config.server.workers}, but memory storage lives in one process; use disk or mongodb storage, or 1 worker`];
  }
  return [];
}

/** parseConfig for callers that stop at the first refusal: throws ConfigError naming every problem. */
export function configFrom(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ServerConfig {
  const result = parseConfig(argv, env);
  if (!result.ok) throw new ConfigError(result.problems.join('; '));
  return result.config;
}

function readFlags(argv: readonly string[]): Record<string, string | boolean | undefined> | string {
  const options = Object.fromEntries(settingRows.filter((row) => row.flag !== '').map((row) => [row.flag, { type: 'string' as const }]));
  try {
    return parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } }, strict: true }).values;
  } catch (error) {
    // Node's own hint spans lines ("…use '--rate-limit=-XYZ'"): keep all of it, on one line.
    return `${(error as Error).message.replace(/\s*\n\s*/g, ' ')} (see --help)`;
  }
}
