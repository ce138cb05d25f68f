import { startBareServer, startKoaFloor, startPlantStore, type Contender } from './contenders.js';
import { IdSource, workloads } from './load.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { CONTENDERS, interleave, progress, SEEDED_PLANTS, type Series, type Settings } from './sections.js';

/** The steps of the breakdown, from this server as shipped down to the ceiling. */
export const BREAKDOWN_STEPS = [
  { name: 'this server, as shipped', what: 'as in the comparison' },
  { name: 'request log off', what: '`PLANT_STORE_LOG_LEVEL=silent`: no pino line per request' },
  { name: 'request log and failed-auth limit off', what: 'also `PLANT_STORE_AUTH_FAILURE_LIMIT=off`' },
  { name: 'Koa floor', what: 'Koa + @koa/router, the bearer check and a Map lookup (W3), an array slice (W1) or a body read and a Map insert (W2), nothing else ([`test/bench/koa-floor-server.ts`](test/bench/koa-floor-server.ts))' },
  { name: CONTENDERS.bare, what: 'as in the comparison' },
] as const;

/** Seconds of each breakdown run: 0.4 of the comparison's, so the whole benchmark stays short. */
export const breakdownSeconds = (settings: Settings): number => Math.max(2, Math.round(settings.seconds * 0.4));

/** W3 through every step; W1 (where the response is larger) and W2 (a body read and a write) through as shipped, Koa floor and ceiling. */
export interface Breakdown {
  readonly W3: Series[];
  readonly W1: Series[];
  readonly W2: Series[];
}

/**
 * Where the time of a request goes: this server with its features switched off one by one
 * (through its own settings), a bare Koa app, and the ceiling, interleaved; W3, then W1 and W2.
 */
export async function breakdownSection(settings: Settings, token: string): Promise<Breakdown> {
  const load = { seconds: breakdownSeconds(settings), connections: settings.connections, token };
  const plants = SEEDED_PLANTS;
  const [shipped, noLog, noLogNoLimit, koa, bare] = BREAKDOWN_STEPS.map((step) => step.name);
  progress(`breakdown: starting ${BREAKDOWN_STEPS.length} servers`);
  const contenders: Contender[] = [];
  try {
    contenders.push(await startPlantStore({ name: shipped, plants, token }));
    contenders.push(await startPlantStore({ name: noLog, plants, token, env: { PLANT_STORE_LOG_LEVEL: 'silent' } }));
    contenders.push(
      await startPlantStore({ name: noLogNoLimit, plants, token, env: { PLANT_STORE_LOG_LEVEL: 'silent', PLANT_STORE_AUTH_FAILURE_LIMIT: 'off' } }),
    );
    contenders.push(await startKoaFloor({ name: koa, plants, token }));
    contenders.push(await startBareServer({ name: bare, plants, token }));
    const ids = new IdSource(FIRST_WRITE_ID);
    const W3 = await interleave('breakdown W3', contenders, () => workloads.W3, ids, settings, load);
    const shippedKoaBare = [contenders[0]!, contenders[3]!, contenders[4]!];
    const W1 = await interleave('breakdown W1', shippedKoaBare, () => workloads.W1, ids, settings, load);
    const W2 = await interleave('breakdown W2', shippedKoaBare, () => workloads.W2, ids, settings, load);
    return { W3, W1, W2 };
  } finally {
    for (const contender of contenders) await contender.stop();
  }
}
