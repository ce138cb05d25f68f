/** How the report writes figures; a figure that could not be measured is a dash. */
import type { Spread } from './stats.js';

export const integer = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const decimal = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
export const ratio = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : '–');
export const megabytes = (bytes: number | undefined) => (bytes === undefined ? '–' : `${(bytes / 1e6).toFixed(0)} MB`);
export const withRange = (s: Spread, format: (n: number) => string) => `${format(s.median)} (${format(s.min)}–${format(s.max)})`;
