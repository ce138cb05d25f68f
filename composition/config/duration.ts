import { mixed } from 'yup';

/** The units a duration setting is written in (the retry schedule, the sandbox lifetime). */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `30m` → 1,800,000; undefined unless a number followed by ms, s, m or h. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  return match ? Math.round(Number(match[1]) * UNIT_MS[match[2]!]!) : undefined;
}

/** A duration in the largest unit that divides it, as the settings write one: `30m`, `24h`. */
export function durationText(ms: number): string {
  const [unit, size] = Object.entries(UNIT_MS)
    .sort(([, a], [, b]) => b - a)
    .find(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${unit}`;
}

/** A setting's rule for a duration written as above, from `minMs` to `maxMs`. */
export function durationSchema(minMs: number, maxMs: number, range: string) {
  const rule = `must be a duration like 30m or 24h (ms, s, m or h), ${range}`;
  return mixed<number>()
    .transform((_, raw: string) => parseDuration(raw) ?? Number.NaN)
    .test('duration', rule, (ms) => ms !== undefined && ms >= minMs && ms <= maxMs);
}
