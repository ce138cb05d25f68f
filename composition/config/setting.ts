import { mixed, number, type InferType, type Schema } from 'yup';

/**
 * One row of the settings table: the option it fills (a path in the options tree, for the
 * docs), its flag (empty: variable only), its variable, its default as text, its help line,
 * and how text becomes a typed value or a one-line refusal.
 */
export interface Setting<T> {
  readonly option: string;
  readonly flag: string;
  readonly env: string;
  readonly default: string;
  /**
   * The default as --help and the docs show it, where it is not text this row parses: it
   * is decided later, from another row or by the option's own default (e.g. the storage
   * kind: disk, or mongodb when a URI is set). Absent: `default` is shown.
   */
  readonly shownDefault?: string;
  readonly help: string;
  /**
   * The typed value; or a yup ValidationError whose message says what is accepted (the value
   * is quoted after it), or a ConfigError whose message stands alone (for secrets: never quoted).
   */
  parse(text: string): T;
}

export const setting = <S extends Schema<any, any, any, any>>(
  row: Omit<Setting<unknown>, 'parse'>,
  schema: S,
): Setting<InferType<S>> => ({ ...row, parse: (text) => schema.validateSync(text) });

/** The default an operator is shown: `shownDefault`, else `default`; empty when there is none. */
export const shownDefaultOf = (setting: Pick<Setting<unknown>, 'default' | 'shownDefault'>): string => setting.shownDefault ?? setting.default;

/** How an operator names a setting: its flag and variable, or the variable alone. */
export function labelOf(setting: Pick<Setting<unknown>, 'flag' | 'env'>): string {
  return setting.flag ? `--${setting.flag} / ${setting.env}` : setting.env;
}

/** Decimal digits only, within bounds: `1e3`, `0x10` and `-1` are refused, not guessed at. */
export function integer(min: number, max: number) {
  return boundedInteger(min, max, `must be an integer from ${min} to ${max}`, digitsOf);
}

/** As `integer`, or `word`, which stands for `valueOf()` (e.g. `auto`: one per core). */
export function integerOr(word: string, valueOf: () => number, min: number, max: number) {
  return boundedInteger(min, max, `must be an integer from ${min} to ${max}, or ${word}`, (raw) => (raw.trim() === word ? valueOf() : digitsOf(raw)));
}

const digitsOf = (raw: string): number => (/^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN);

function boundedInteger(min: number, max: number, rule: string, valueOf: (raw: string) => number) {
  return number()
    .transform((_, raw: string) => valueOf(raw))
    .typeError(rule)
    .required(rule)
    .min(min, rule)
    .max(max, rule);
}

/** A positive number (decimals allowed), or `off` for undefined. */
export function numberOrOff(min: number, max: number) {
  const rule = `must be a number from ${min} to ${max}, or off`;
  return mixed<number>()
    .transform((_, raw: string) => {
      const text = raw.trim();
      if (text === 'off') return undefined;
      return /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    })
    .test('bounded', rule, (value) => value === undefined || (value >= min && value <= max));
}

/** Optional text matching `pattern`; empty means not given. */
export function optionalText(pattern: RegExp, rule: string) {
  return mixed<string>()
    .transform((_, raw: string) => (raw === '' ? undefined : raw))
    .test('shape', rule, (value) => value === undefined || pattern.test(value));
}

/** The entries of a comma-separated list, blanks dropped. */
export const entriesOf = (raw: string): string[] =>
  raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** A comma-separated list, blanks dropped; each entry must match `pattern`. */
export function list(pattern: RegExp, rule: string) {
  return mixed<string[]>()
    .defined()
    .transform((_, raw: string) => entriesOf(raw))
    .test('entries', rule, (entries) => entries !== undefined && entries.every((entry) => pattern.test(entry)));
}

/** on or off (also true or false, 1 or 0). */
export function onOff() {
  return mixed<boolean>()
    .transform((_, raw: string) => ({ on: true, off: false, true: true, false: false, '1': true, '0': false })[raw.trim().toLowerCase()])
    .defined('must be on or off');
}

/** true or false (also 1 or 0). */
export function boolean() {
  return mixed<boolean>()
    .transform((_, raw: string) => ({ true: true, false: false, '1': true, '0': false })[raw.trim().toLowerCase()])
    .defined('must be true or false');
}
