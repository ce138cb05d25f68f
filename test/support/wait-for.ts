import { eventually } from './eventually.js';

/**
 * `eventually` under its former name and argument order, kept only while the outbox tests
 * still import it; new code calls eventually. Delete once nothing imports it.
 */
export function waitFor<T>(probe: () => T | undefined, context?: () => string, timeoutMs?: number): Promise<Exclude<T, undefined | null | false>> {
  return eventually(probe, { context, timeoutMs });
}
