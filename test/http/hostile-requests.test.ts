import { expect } from 'chai';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { HttpClient } from '../support/http-client.js';
import { allowedMethods, expectError, expectPlant } from '../support/http-expect.js';
import { rawExchange, RawConnection } from '../support/raw-http.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';

const memory = async () => ({ repository: new MemoryPlantRepository(), close: async () => {} });

/** Issue 14: requests as an attacker sends them, each answered in the contract's shape. */
describe('hostile requests', () => {
  let server: HttpServer;
  let http: HttpClient;
  beforeEach(async () => {
    server = await startHttpServer(memory);
    http = new HttpClient(server);
  });
  afterEach(() => server.close());

  describe('a corrupt Content-Encoding is the client’s fault: 400 40002, nothing logged as a failure', () => {
    const plant = Buffer.from('{"id":1,"name":"Monstera"}');
    const gzipped = gzipSync(plant);
    const badChecksum = Buffer.from(gzipped);
    badChecksum.writeUInt32LE((badChecksum.readUInt32LE(badChecksum.length - 8) ^ 0xffffffff) >>> 0, badChecksum.length - 8);
    const bodies: [string, string, Buffer][] = [
      ['truncated gzip', 'gzip', gzipped.subarray(0, gzipped.length - 12)],
      ['gzip with a bad checksum', 'gzip', badChecksum],
      ['bytes that are not gzip', 'gzip', Buffer.from('plainly not gzip')],
      ['bytes that are not deflate', 'deflate', Buffer.from('plainly not deflate')],
      ['truncated deflate', 'deflate', deflateSync(plant).subarray(0, 6)],
      ['bytes that are not brotli', 'br', Buffer.from('plainly not brotli, not at all')],
      ['truncated brotli', 'br', brotliCompressSync(plant).subarray(0, 4)],
    ];
    for (const [what, encoding, body] of bodies) {
      it(`${what}`, async () => {
        const response = await http.post('/plants', { raw: body, headers: { 'Content-Encoding': encoding } });
        expectError(response, 400, 40002);
        expect(server.serverErrors).to.deep.equal([]);
        expect((await http.get('/plants')).body).to.deep.equal([]);
      });
    }

    it('a well-formed gzip body is still accepted', async () => {
      const response = await http.post('/plants', { raw: gzipped, headers: { 'Content-Encoding': 'gzip' } });
      expect(response.status).to.equal(200);
      expectPlant(response.body, { id: 1, name: 'Monstera' });
    });
  });

  describe('unknown paths are 404 40400 whatever the method; a 405 always lists Allow', () => {
    for (const method of ['TRACE', 'PROPFIND', 'LOCK', 'MKCOL', 'SEARCH', 'PURGE', 'M-SEARCH', 'DELETE', 'PATCH']) {
      it(`${method} /nowhere → 404 40400`, async () => {
        const response = await rawExchange(server, `${method} /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close`);
        expectError(response, 404, 40400);
        expect(response.headers.get('allow')).to.equal(null);
      });
    }
    for (const method of ['PROPFIND', 'TRACE', 'PUT']) {
      it(`${method} /plants → 405 40501 with Allow listing GET, HEAD, POST`, async () => {
        const response = await rawExchange(server, `${method} /plants HTTP/1.1\r\nHost: x\r\nConnection: close`);
        expectError(response, 405, 40501);
        expect(allowedMethods(response)).to.deep.equal(['GET', 'HEAD', 'POST']);
      });
    }
  });

  describe('a 404 names the path but never echoes the query string, where a credential may have been put', () => {
    const secret = 'query-secret-0123456789';
    const targets: [string, string, string][] = [
      ['GET', `/nowhere?access_token=${secret}`, 'no route for GET /nowhere'],
      ['GET', `/nowhere/?token=${secret}&x=1`, 'no route for GET /nowhere/'],
      ['GET', `http://example.com/nowhere?token=${secret}`, 'no route for GET /nowhere'],
      ['CONNECT', `example.com:443?token=${secret}`, 'no route for CONNECT example.com:443'],
      // Koa reads a target starting with // as a URL with a host: this one it cannot parse (it was a 500).
      ['POST', `//x8@[z,/=#'(-/!/%2F?token=${secret}`, "no route for POST //x8@[z,/="],
      ['GET', `//plants?token=${secret}`, 'no route for GET //plants'],
    ];
    for (const [method, target, message] of targets) {
      it(`${method} ${target.replace(secret, '…')} → 404 40400 "${message}"`, async () => {
        const response = await rawExchange(server, `${method} ${target} HTTP/1.1\r\nHost: example.com\r\nConnection: close`);
        expectError(response, 404, 40400);
        expect((response.body as { message: string }).message).to.equal(message);
        expect(response.text).not.to.include(secret);
      });
    }
  });

  describe('CONNECT is answered like any method, then the connection closes', () => {
    it('CONNECT host:port → 404 40400', async () => {
      const response = await rawExchange(server, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443');
      expectError(response, 404, 40400);
      expect(response.headers.get('connection')).to.equal('close');
    });
    it('CONNECT /plants → 405 40501 with Allow', async () => {
      const response = await rawExchange(server, 'CONNECT /plants HTTP/1.1\r\nHost: x');
      expectError(response, 405, 40501);
      expect(allowedMethods(response)).to.deep.equal(['GET', 'HEAD', 'POST']);
    });
  });

  describe("errors of Node's HTTP parser answer JSON with the table's status and code, connection closed", () => {
    const heads: [string, string, number, number][] = [
      ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1', 400, 40002],
      ['two Host lines', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b', 400, 40002],
      ['two Host lines, HTTP/1.0', 'GET /healthz HTTP/1.0\r\nHost: a\r\nhost: a', 400, 40002],
      ['a Host that is no host', 'GET /healthz HTTP/1.1\r\nHost: a b', 400, 40002],
      ['a Host with a path', 'GET /healthz HTTP/1.1\r\nHost: a/b', 400, 40002],
      ['two Authorization lines (Node would keep the first)', 'GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nauthorization: Bearer b', 400, 40002],
      ['Expect: foo', 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo', 417, 41701],
      ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}`, 431, 43101],
      ['many headers adding up to over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x${Array.from({ length: 2000 }, (_, i) => `\r\nX-H${i}: 0123456789`).join('')}`, 431, 43101],
      ['a malformed request line', 'GET /healthz HTTP/9.9.9\r\nHost: x', 400, 40002],
    ];
    for (const [what, head, status, code] of heads) {
      it(`${what} → ${status} ${code}`, async () => {
        const response = await rawExchange(server, head);
        expectError(response, status, code);
        expect(response.headers.get('connection')).to.equal('close');
      });
    }
  });

  it('a Host of a name, an address, a bracketed IPv6 literal, with or without a port, or empty (RFC 9112 §3.2) is served', async () => {
    for (const host of ['example.com', 'example.com:443', '127.0.0.1:3000', '[::1]:8080', 'xn--bcher-kva.example', '']) {
      const response = await rawExchange(server, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close`);
      expect(response.status, `Host: ${host} → ${response.text}`).to.equal(200);
    }
  });

  describe('Expect: 100-continue gets 100 Continue only after the token is checked', () => {
    const body = '{"id":5,"name":"Fern"}';
    const head = (authorization: string) =>
      `POST /plants HTTP/1.1\r\nHost: x\r\n${authorization}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`;

    it('without a token: 401 40101 at once, never 100', async () => {
      const connection = await RawConnection.open(server);
      try {
        connection.write(head(''));
        expectError(await connection.nextResponse('POST /plants'), 401, 40101);
      } finally {
        connection.destroy();
      }
    });

    it('with an unknown token: 401 40102 at once, never 100', async () => {
      const connection = await RawConnection.open(server);
      try {
        connection.write(head('Authorization: Bearer not-a-token-of-this-server\r\n'));
        expectError(await connection.nextResponse('POST /plants'), 401, 40102);
      } finally {
        connection.destroy();
      }
    });

    it('with a valid token: 100 Continue, then the body is read and the plant created', async () => {
      const connection = await RawConnection.open(server);
      try {
        connection.write(head(`Authorization: Bearer ${server.token}\r\n`));
        expect((await connection.nextResponse('POST /plants')).status).to.equal(100);
        connection.write(body);
        const created = await connection.nextResponse('POST /plants');
        expect(created.status).to.equal(200);
        expectPlant(created.body, { id: 5, name: 'Fern' });
      } finally {
        connection.destroy();
      }
    });
  });
});
