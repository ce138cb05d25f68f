import { expect } from 'chai';
import fc from 'fast-check';
import { METHODS } from 'node:http';
import { STORAGE_OPERATIONS } from '../../composition/store/measured-storage.js';
import { samplesOf } from '../support/exposition.js';
import { fuzzRequest, wireBytes } from '../support/fuzz-requests.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { inCi } from '../support/in-ci.cjs';
import { RawConnection } from '../support/raw-http.js';

// As the HTTP fuzz suite: a fixed seed in CI, a random one (printed) elsewhere; FUZZ_SEED replays one.
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : inCi ? 2727 : Math.floor(Math.random() * 2 ** 31);
const numRuns = Number(process.env['FUZZ_RUNS'] ?? 150);

/** What each label may hold: a fixed set, or a shape. Every metric's labels are among these names. */
function allowedValues(server: HttpServer): Record<string, (value: string) => boolean> {
  // The route templates are the OpenAPI document's paths, which name exactly the routes served.
  const routes = new Set([...Object.keys(server.openapi['paths'] as object), 'unmatched']);
  const oneOf = (values: Iterable<string>) => {
    const allowed = new Set(values);
    return (value: string) => allowed.has(value);
  };
  return {
    method: oneOf([...METHODS, 'other']),
    route: oneOf(routes),
    status: (value) => /^[1-5]\d\d$/.test(value),
    operation: oneOf(STORAGE_OPERATIONS),
    outcome: oneOf(['delivered', 'retried', 'failed', 'gone']),
    reason: oneOf(['missing_token', 'invalid_token', 'insufficient_scope', 'rate_limit', 'auth_failure_limit', 'quota']),
    le: (value) => value === '+Inf' || Number.isFinite(Number(value)),
  };
}

describe('metric labels after a fuzzed load', function () {
  this.timeout(Math.max(120_000, numRuns * 1000));
  let server: HttpServer;
  before(async () => {
    server = await startHttpServer(undefined, {
      env: { PLANT_STORE_METRICS: 'on', PLANT_STORE_RATE_LIMIT: '1000', PLANT_STORE_AUTH_FAILURE_LIMIT: '1000' },
      timeouts: { headersTimeoutMs: 1000, requestTimeoutMs: 2000 },
    });
  });
  after(() => server.close());

  it(`${numRuns} runs of hostile request sequences: every label of the service's metrics is a route template, a method, a status or a fixed name — never an id, a path, a token`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzRequest, { minLength: 1, maxLength: 8 }), async (sequence) => {
        for (const request of sequence) {
          const connection = await RawConnection.open(server);
          try {
            connection.write(wireBytes(request, server.token));
            while ((await connection.nextResponse(`${request.method} ${request.target}`, 5000)).status < 200);
          } finally {
            connection.destroy();
          }
        }
      }),
      { seed, numRuns, endOnFailure: true },
    );
    const exposition = (await server.http.get(server.http.root('/metrics'))).text;
    expect(exposition).not.to.include(server.token);
    const allowed = allowedValues(server);
    const own = samplesOf(exposition).filter((sample) => sample.name.startsWith('plant_store_'));
    const problems = own.flatMap((sample) =>
      Object.entries(sample.labels)
        .filter(([name, value]) => !(allowed[name]?.(value) ?? false))
        .map(([name, value]) => `${sample.name} ${name}="${value}"`),
    );
    expect(problems, `labels out of bounds (seed ${seed})`).to.deep.equal([]);
    const routes = new Set(own.map((sample) => sample.labels['route']).filter((route) => route !== undefined));
    console.log(`      metric labels: ${own.length} samples after ${numRuns} runs, seed ${seed}; routes ${[...routes].sort().join(' ')}`);
    expect(routes.size, 'the load reached several routes').to.be.greaterThan(2);
    expect(routes.has('unmatched')).to.equal(true);
  });
});
