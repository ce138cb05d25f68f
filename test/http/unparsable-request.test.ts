import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { expectError } from '../support/http-expect.js';
import { rawExchange } from '../support/raw-http.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

describe('requests the HTTP parser rejects', () => {
  let server: HttpServer;
  beforeEach(async () => {
    server = await startHttpServer(async () => ({ repository: new MemoryPlantRepository(), close: async () => {} }));
  });
  afterEach(() => server.close());

  const heads: [string, string][] = [
    ['a Content-Length that is not a number', 'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ten'],
    ['two conflicting Content-Lengths', 'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3'],
    ['a header line without a colon', 'GET /plants HTTP/1.1\r\nHost: x\r\nthis is not a header'],
  ];
  for (const [what, head] of heads) {
    it(`${what}: 400 40002 in the contract's shape, connection closed`, async () => {
      const response = await rawExchange(server, head, '{}');
      expectError(response, 400, 40002);
      if (response.headers.get('connection') !== 'close') throw new Error('expected Connection: close');
    });
  }

  it('paths are case-sensitive: /PLANTS is no route', async () => {
    const response = await rawExchange(server, `GET /PLANTS HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nConnection: close`);
    expectError(response, 404, 40400);
  });
});
