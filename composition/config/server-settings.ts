import { availableParallelism } from 'node:os';
import { mixed } from 'yup';
import { setting } from './setting.js';

/** How the command runs: the `server` option. */
export interface ServerProcessOptions {
  /** Processes serving the one port; 1 is a single process, as an embedded server is. */
  readonly workers: number;
}

/** Past this, more processes only share the same cores and one LMDB writer. */
const MAX_WORKERS = 64;

export const serverSettings = {
  workers: setting(
    { option: 'server.workers', flag: 'workers', env: 'PLANT_STORE_WORKERS', default: '1', help: `processes serving the port together (1-${MAX_WORKERS}, or auto: one per available core); more than 1 needs disk or MongoDB storage` },
    mixed<number>()
      .transform((_, raw: string) => {
        const text = raw.trim();
        if (text === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
        return /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
      })
      .test('workers', `must be an integer from 1 to ${MAX_WORKERS}, or auto`, (value) => value !== undefined && value >= 1 && value <= MAX_WORKERS),
  ),
};

export function serverOptionsFrom(v: { workers: number | undefined }): { readonly value: ServerProcessOptions } {
  return { value: { workers: v.workers! } };
}
