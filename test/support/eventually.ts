export interface EventuallyOptions {
  /** How long to keep trying; default 10 s; Infinity: until the probe answers. */
  readonly timeoutMs?: number;
  /** The pause between tries; default 20 ms. */
  readonly intervalMs?: number;
  /** What is awaited, for the timeout message; default: the probe's source. */
  readonly what?: string;
  /** The state worth seeing when it times out, e.g. what has arrived so far. */
  readonly context?: () => string | Promise<string>;
}

/** What a probe answers while the awaited state has not come yet. */
type NotYet = undefined | null | false;

const timedOut = Symbol('timed out');

/**
 * Calls `probe` (sync or async) until it answers something other than undefined, null or
 * false, and resolves with that answer; a probe that throws fails at once. After
 * `timeoutMs` it fails, saying what was awaited, the last answer and `context()`; a try
 * still under way then is not waited for.
 */
export async function eventually<T>(probe: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 10_000, intervalMs = 20 } = options;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  // No timer for an endless wait (Infinity): setTimeout would take it as 1 ms.
  const expired = new Promise<typeof timedOut>((resolve) => Number.isFinite(timeoutMs) && (timer = setTimeout(() => resolve(timedOut), timeoutMs)));
  let last: unknown = 'none yet';
  try {
    for (let tries = 1; ; tries++) {
      const answer = await Promise.race([probe(), expired]);
      if (answer !== timedOut && !isNotYet(answer)) return answer as Exclude<T, NotYet>;
      if (answer !== timedOut) last = answer;
      const left = started + timeoutMs - performance.now();
      if (answer === timedOut || left <= 0) {
        const awaited = options.what ?? sourceOf(probe);
        const context = options.context === undefined ? '' : `\n${await options.context()}`;
        throw new Error(`gave up after ${Math.round(performance.now() - started)} ms (${tries} tries, last answer ${String(last)}) waiting for ${awaited}${context}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
    }
  } finally {
    clearTimeout(timer);
  }
}

function isNotYet(answer: unknown): answer is NotYet {
  return answer === undefined || answer === null || answer === false;
}

/** The probe's code on one line, shortened: enough to tell which wait gave up. */
function sourceOf(probe: () => unknown): string {
  const source = probe.toString().replace(/\s+/g, ' ');
  return source.length > 160 ? `${source.slice(0, 157)}...` : source;
}
