import { ACCESS_CONTENDERS, type AccessResult } from './access-section.js';
import { ratio, withRange } from './format.js';
import { pairedRatio } from './run-figures.js';

/** JWT per CPU-second ÷ static token per CPU-second, round by round. */
export function jwtVersusStatic(access: AccessResult) {
  const of = (name: string) => access.series.find((s) => s.contender === name)!.runs;
  const jwt = of(ACCESS_CONTENDERS.jwt);
  const fixed = of(ACCESS_CONTENDERS.static);
  return {
    perCpu: pairedRatio(jwt.map((r) => r.requestsPerCpuSecond), fixed.map((r) => r.requestsPerCpuSecond)),
    perSecond: pairedRatio(jwt.map((r) => r.requestsPerSecond), fixed.map((r) => r.requestsPerSecond)),
    runs: [...jwt, ...fixed],
  };
}

/** The "access" section: W3 with a JWT against W3 with a static token. */
export function renderAccess(access: AccessResult, table: string[]): string[] {
  const { perCpu, perSecond } = jwtVersusStatic(access);
  return [
    '## Access: a JWT against a static token (W3)',
    '',
    'One server as shipped, configured with a static token and an identity provider (a JWKS served on loopback by the benchmark; RS256 key). W3 `GET /plants/{id}` sent with the static token and with one JWT (`sub` bench-client, both scopes), in interleaved rounds against the same process. A JWT is verified once (signature, issuer, audience, expiry) and then remembered until it expires, so later requests cost a map lookup after the static-token check.',
    '',
    ...table,
    '',
    `JWT against static token: ${withRange(perCpu, ratio)} per server CPU-second, ${withRange(perSecond, ratio)} in req/s (round by round).`,
    '',
  ];
}
