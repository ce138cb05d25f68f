import { expect } from 'chai';
import fc from 'fast-check';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { statusByErrorCode } from '../../adapters/http/errors/error-statuses.js';
import type { ErrorCode, Plant } from '../../core/index.js';
import { decodedBody, fuzzRequest, wireBytes, type FuzzRequest } from '../support/fuzz-requests.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { inCi } from '../support/in-ci.cjs';
import { RawConnection, type RawResponse } from '../support/raw-http.js';

/**
 * Issue 14: arbitrary methods, paths, queries, headers, bodies and encodings against a live
 * server. Every answer must be in the documented status table for its route (the OpenAPI
 * document), never a 5xx, every error `{error, message}` with its table status, and the
 * store afterwards must equal a model built only from the changes the server acknowledged.
 *
 * CI runs a fixed seed; elsewhere the seed is random and printed. FUZZ_SEED replays one,
 * FUZZ_RUNS asks for a larger run (each run is a sequence of up to 12 requests).
 */
const seed = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : inCi ? 1414 : Math.floor(Math.random() * 2 ** 31);
const numRuns = Number(process.env['FUZZ_RUNS'] ?? 400);

describe('fuzzing the HTTP API', function () {
  this.timeout(Math.max(120_000, numRuns * 1000));
  let server: HttpServer;
  before(async () => {
    server = await startHttpServer(async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }), {
      // Short limits: a request the fuzzer frames so that the server waits for more ends fast.
      timeouts: { headersTimeoutMs: 1000, requestTimeoutMs: 2000 },
    });
  });
  after(() => server.close());

  it(`${numRuns} runs of request sequences: never a 5xx, only documented answers, the store equals the model`, async () => {
    let requests = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(fuzzRequest, { minLength: 1, maxLength: 12 }), async (sequence) => {
        const model = new Map((await storedPlants(server)).map((plant) => [plant.id, plant]));
        for (const request of sequence) {
          const response = await exchange(server, request);
          requests++;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          checkAnswer(request, response);
          applyAcknowledged(model, request, response);
        }
        expect(await storedPlants(server), 'the store after the sequence').to.deep.equal([...model.values()].sort((a, b) => a.id - b.id));
      }),
      { seed, numRuns, endOnFailure: false },
    );
    const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ');
    console.log(`      fuzz: ${requests} requests in ${numRuns} runs, seed ${seed} (${byStatus})`);
    expect(server.serverErrors).to.deep.equal([]);
  });
});

/** Sends the request on its own connection and reads the final answer, past any 100 Continue. */
async function exchange(server: HttpServer, request: FuzzRequest): Promise<RawResponse> {
  const connection = await RawConnection.open(server);
  try {
    connection.write(wireBytes(request, server.token));
    const label = `${request.method} ${request.target}`;
    for (;;) {
      const response = await connection.nextResponse(label, 5000);
      if (response.status >= 200) return response;
    }
  } catch (error) {
    throw new Error(`${(error as Error).message}\nrequest: ${JSON.stringify({ ...request, body: request.body?.toString('latin1').slice(0, 200) })}`);
  }
  finally {
    connection.destroy();
  }
}

function checkAnswer(request: FuzzRequest, response: RawResponse): void {
  const about = `${request.method} ${request.target} → ${response.status} ${response.text.slice(0, 200)}`;
  expect(response.status, about).to.be.below(500);
  if (response.status < 400) return;
  expect(response.headers.get('content-type'), about).to.match(/^application\/json(;|$)/);
  if (request.method === 'HEAD') return;
  const body = response.body as Record<string, unknown>;
  expect(body, about).to.be.an('object');
  expect(Object.keys(body).sort(), about).to.deep.equal(['error', 'message']);
  expect(body['message'], about).to.be.a('string').that.is.not.empty;
  expect(statusByErrorCode[body['error'] as ErrorCode], about).to.equal(response.status);
}

/** Only what the server acknowledged changes the model: a 200 create, a 204 delete. */
function applyAcknowledged(model: Map<number, Plant>, request: FuzzRequest, response: RawResponse): void {
  if (request.method === 'POST' && response.status === 200) {
    const plant = response.body as Plant;
    expect(model.has(plant.id), `acknowledged a second plant ${plant.id}`).to.equal(false);
    const decoded = decodedBody(request);
    expect(decoded, 'acknowledged a body that cannot be decoded').to.not.equal(undefined);
    const sent = JSON.parse(decoded!.toString('utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>;
    expect(plant, 'the created plant is what was sent').to.deep.equal({ id: sent['id'], name: sent['name'], ...(typeof sent['tag'] === 'string' && { tag: sent['tag'] }) });
    model.set(plant.id, plant);
  }
  if (request.method === 'DELETE' && response.status === 204) {
    const id = Number(decodeURIComponent(new URL(request.target, 'http://fuzz.test').pathname.split('/')[2] ?? ''));
    expect(model.delete(id), `acknowledged deleting plant ${id}, which the model does not hold`).to.equal(true);
  }
}

async function storedPlants(server: HttpServer): Promise<Plant[]> {
  const page = await server.store.useCases.listPlants.execute({ limit: 1000 });
  return page.plants.map((plant) => ({ ...plant }));
}
