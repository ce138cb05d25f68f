import { expect } from 'chai';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { DEFAULT_PIPELINE_LIMIT } from '../../adapters/http/server/node-server.js';
import { expectPlant } from '../support/http-expect.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { RawConnection } from '../support/raw-http.js';

/** The per-connection limit holds pipelined requests back; a client that reads loses nothing. */
describe('pipelined requests from a client that reads', () => {
  let server: HttpServer;
  beforeEach(async () => {
    server = await startHttpServer(async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }));
  });
  afterEach(() => server.close());

  it(`many more than ${DEFAULT_PIPELINE_LIMIT} pipelined creates and reads, bodies included, are all answered in order`, async () => {
    const count = DEFAULT_PIPELINE_LIMIT * 8;
    const auth = `Authorization: Bearer ${server.token}\r\n`;
    let wire = '';
    for (let id = 1; id <= count; id++) {
      const body = JSON.stringify({ id, name: `pipelined ${id}` });
      wire += `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      wire += `GET /plants/${id} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
    }
    const connection = await RawConnection.open(server);
    try {
      connection.write(wire);
      for (let id = 1; id <= count; id++) {
        const created = await connection.nextResponse('POST /plants');
        expect(created.status, created.text).to.equal(200);
        expectPlant(created.body, { id, name: `pipelined ${id}` });
        const read = await connection.nextResponse(`GET /plants/${id}`);
        expect(read.status, read.text).to.equal(200);
        expectPlant(read.body, { id, name: `pipelined ${id}` });
      }
    } finally {
      connection.destroy();
    }
  });
});
