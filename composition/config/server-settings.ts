import { availableParallelism } from 'node:os';
import { integerOr, setting } from './setting.js';

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
    integerOr('auto', () => Math.min(availableParallelism(), MAX_WORKERS), 1, MAX_WORKERS),
  ),
};

export function serverOptionsFrom(v: { workers: number }): { readonly value: ServerProcessOptions } {
  return { value: { workers: v.workers } };
}
