import { IdentityProvider } from '../support/identity-provider.js';
import { startPlantStore, type Contender } from './contenders.js';
import { IdSource, workloads } from './load.js';
import { FIRST_WRITE_ID } from './seed-plants.js';
import { interleave, progress, SEEDED_PLANTS, type Series, type Settings } from './sections.js';

export const ACCESS_CONTENDERS = { static: 'static token', jwt: 'JWT (RS256)' } as const;

/** W3 with a JWT and with a static token, on one server accepting both. */
export interface AccessResult {
  readonly series: Series[];
}

/**
 * The cost of identity-provider tokens on the hot path: one server, as shipped, with a
 * static token and a loopback identity provider configured; W3 sent with the static token
 * and with a JWT in interleaved rounds. Same process, so the CPU figures compare directly.
 */
export async function accessSection(settings: Settings, token: string): Promise<AccessResult> {
  const idp = await IdentityProvider.start();
  let server: Contender | undefined;
  try {
    // Valid well past the run, so every request of the JWT rounds carries a live token.
    const jwt = await idp.sign('bench-client', { claims: { exp: Math.floor(Date.now() / 1000) + 3 * 3600 } });
    progress('access: starting this server with a static token and an identity provider');
    server = await startPlantStore({
      name: ACCESS_CONTENDERS.static,
      plants: SEEDED_PLANTS,
      token,
      env: { PLANT_STORE_JWT_JWKS_URL: idp.jwksUrl, PLANT_STORE_JWT_ISSUER: idp.issuer, PLANT_STORE_JWT_AUDIENCE: idp.audience },
    });
    const withJwt: Contender = { ...server, name: ACCESS_CONTENDERS.jwt, token: jwt };
    const load = { seconds: settings.seconds, connections: settings.connections, token };
    const series = await interleave('access W3', [server, withJwt], () => workloads.W3, new IdSource(FIRST_WRITE_ID), settings, load);
    return { series };
  } finally {
    await server?.stop();
    await idp.stop();
  }
}
