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

  // The valid requests' work is done (a create stored): their answers must reach the client
  // before the error, or it would read the 400 as the answer to its create.
  for (const [what, bad, expected] of [
    ['a malformed request', 'GARBAGE\r\n\r\n', 400],
    ['headers too large', `GET /plants HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ] as const) {
    it(`creates and a read sent in one packet with ${what} after them are answered in order, then the error (${expected}), then the connection closes`, async () => {
      const auth = `Authorization: Bearer ${server.token}\r\n`;
      const create = (id: number) => {
        const body = JSON.stringify({ id, name: `before the error ${id}` });
        return `POST /plants HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      };
      const connection = await RawConnection.open(server);
      try {
        connection.write(create(1) + create(2) + `GET /plants/1 HTTP/1.1\r\nHost: x\r\n${auth}\r\n` + bad);
        for (const id of [1, 2]) {
          const created = await connection.nextResponse('POST /plants');
          expect(created.status, created.text).to.equal(200);
          expectPlant(created.body, { id, name: `before the error ${id}` });
        }
        const read = await connection.nextResponse('GET /plants/1');
        expect(read.status, read.text).to.equal(200);
        const error = await connection.nextResponse('GET /plants');
        expect(error.status, error.text).to.equal(expected);
        await connection.closedWithin(2000);
      } finally {
        connection.destroy();
      }
    });
  }
});
