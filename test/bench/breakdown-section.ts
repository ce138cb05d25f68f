import { startBareServer, startKoaFloor, startPlantStore, type Contender } from './contenders.js';
import { IdSource, workloads } from './load.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { CONTENDERS, interleave, progress, SEEDED_PLANTS, type Series, type Settings } from './sections.js';

/** The steps of the breakdown, from this server as shipped down to the ceiling. */
export const BREAKDOWN_STEPS = [
  { name: 'this server, as shipped', what: 'as in the comparison' },
  { name: 'request log off', what: '`PLANT_STORE_LOG_LEVEL=silent`: no pino line per request' },
  { name: 'request log and failed-auth limit off', what: 'also `PLANT_STORE_AUTH_FAILURE_LIMIT=off`' },
  { name: 'Koa floor', what: 'Koa + @koa/router, the bearer check and a Map lookup, nothing else ([`test/bench/koa-floor-server.ts`](test/bench/koa-floor-server.ts))' },
  { name: CONTENDERS.bare, what: 'as in the comparison' },
] as const;

/** Seconds of each breakdown run: half the comparison's, so the whole benchmark stays short. */
export const breakdownSeconds = (settings: Settings): number => Math.max(2, Math.round(settings.seconds / 2));

/**
 * Where the time of one W3 request goes: this server with its features switched off one
 * by one (through its own settings), a bare Koa app, and the ceiling, interleaved.
 */
export async function breakdownSection(settings: Settings, token: string): Promise<Series[]> {
  const load = { seconds: breakdownSeconds(settings), connections: settings.connections, token };
  const plants = SEEDED_PLANTS;
  const [shipped, noLog, noLogNoLimit, koa, bare] = BREAKDOWN_STEPS.map((step) => step.name);
  progress(`breakdown (W3): starting ${BREAKDOWN_STEPS.length} servers`);
  const contenders: Contender[] = [];
  try {
    contenders.push(await startPlantStore({ name: shipped, plants, token }));
    contenders.push(await startPlantStore({ name: noLog, plants, token, env: { PLANT_STORE_LOG_LEVEL: 'silent' } }));
    contenders.push(
      await startPlantStore({ name: noLogNoLimit, plants, token, env: { PLANT_STORE_LOG_LEVEL: 'silent', PLANT_STORE_AUTH_FAILURE_LIMIT: 'off' } }),
    );
    contenders.push(await startKoaFloor({ name: koa, plants, token }));
    contenders.push(await startBareServer({ name: bare, plants, token }));
    return await interleave('breakdown W3', contenders, () => workloads.W3, new IdSource(FIRST_WRITE_ID), settings, load);
  } finally {
    for (const contender of contenders) await contender.stop();
  }
}
