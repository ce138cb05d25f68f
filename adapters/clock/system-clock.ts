import type { Clock } from '../../core/index.js';

/** The machine's clock. */
export const systemClock: Clock = { now: () => Date.now() };
