import type { CliServer } from './cli-process.js';
import type { HttpClient } from './http-client.js';
import { eventually } from './eventually.js';

/**
 * Eight writers create plants with rising ids through `api` until `count` creates have
 * been acknowledged with 200, then the server is SIGKILLed while they are still writing.
 * Answers the ids acknowledged (a create whose connection died with the server is not) and
 * the highest id any writer tried.
 */
export async function createUntilKilled(api: HttpClient, server: CliServer, count: number): Promise<{ acknowledged: number[]; lastId: number }> {
  const acknowledged: number[] = [];
  let nextId = 1;
  let killed = false;
  const writer = async () => {
    while (!killed) {
      const id = nextId++;
      try {
        if ((await api.create(id)).status === 200) acknowledged.push(id);
      } catch {
        return; // the connection died with the server: not acknowledged
      }
    }
  };
  const writers = Array.from({ length: 8 }, writer);
  await eventually(() => acknowledged.length >= count, { context: () => `${acknowledged.length} of ${count} acknowledged`, timeoutMs: 60_000 });
  killed = true;
  await server.stop('SIGKILL');
  await Promise.all(writers);
  return { acknowledged, lastId: nextId - 1 };
}
