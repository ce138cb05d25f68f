import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { MemoryPlantRepository } from '../../adapters/storage/memory/memory-plant-repository.js';
import { HttpClient } from '../support/http-client.js';
import { expectError, expectOk } from '../support/http-expect.js';
import { startHttpServer, type HttpServer } from '../support/http-server.js';
import { RawConnection } from '../support/raw-http.js';
import { eventually } from '../support/eventually.js';
import { LINGER_AFTER_ANSWER_MS } from '../../adapters/http/errors/bare-error-answer.js';

const memory = async () => ({ repository: new MemoryPlantRepository(), close: async () => {} });
const headersTimeoutMs = 300;
const requestTimeoutMs = 800;
// Node checks the limits on an interval (a tenth of the headers timeout here); the rest is
// room for a loaded machine.
const slack = 700;

/** Issue 14, item 6: slow clients are cut off at the configured limits with 408 40801. */
describe('slow clients', () => {
  let server: HttpServer;
  const connections: RawConnection[] = [];
  const open = async () => {
    const connection = await RawConnection.open(server);
    connections.push(connection);
    return connection;
  };
  beforeEach(async () => {
    server = await startHttpServer(memory, { timeouts: { headersTimeoutMs, requestTimeoutMs } });
  });
  const hoarders: Socket[] = [];
  afterEach(async () => {
    for (const connection of connections.splice(0)) connection.destroy();
    for (const hoarder of hoarders.splice(0)) hoarder.destroy();
    await server.close();
  });

  it('headers sent a byte at a time: 408 40801 once the headers timeout passes, connection closed', async () => {
    const connection = await open();
    void connection.trickle(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'z'.repeat(200)}`, 20);
    const response = await connection.nextResponse('GET /healthz', 5000);
    expectError(response, 408, 40801);
    expect(response.elapsedMs).to.be.within(headersTimeoutMs - 50, headersTimeoutMs + slack);
    await connection.closedWithin(1000);
  });

  it('a body sent a byte at a time with a valid token: 408 40801 once the request timeout passes', async () => {
    const connection = await open();
    const body = `{"id":1,"name":"${'x'.repeat(200)}"}`;
    connection.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    void connection.trickle(body, 20);
    const response = await connection.nextResponse('POST /plants', 5000);
    expectError(response, 408, 40801);
    expect(response.elapsedMs).to.be.within(requestTimeoutMs - 50, requestTimeoutMs + slack);
    await connection.closedWithin(1000);
    expect((await new HttpClient(server).get('/plants')).body).to.deep.equal([]);
  });

  it('a slow body without a token: 401 at once, and the connection is cut at the request timeout, with nothing more written', async () => {
    const connection = await open();
    connection.write('POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    void connection.trickle('{"id":1,"name":"'.padEnd(1000, 'x'), 20);
    const refused = await connection.nextResponse('POST /plants');
    expectError(refused, 401, 40101);
    expect(refused.elapsedMs).to.be.below(slack);
    const closedAfter = await connection.closedWithin(requestTimeoutMs + slack + 500);
    expect(closedAfter).to.be.below(requestTimeoutMs + slack);
    expect(connection.unread()).to.equal('');
  });

  it('a client that never closes its side after a 408 is cut off, not kept half open', async () => {
    // Half open: the server's end of the connection does not close this side.
    const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
    hoarders.push(socket);
    socket.setNoDelay(true);
    let received = '';
    let failed = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => (failed = true));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: z');
    await eventually(() => received.startsWith('HTTP/1.1 408 '), { what: 'the 408', timeoutMs: headersTimeoutMs + slack + 1000 });
    // Once the server has let go, a write here meets a reset.
    await new Promise((resolve) => setTimeout(resolve, LINGER_AFTER_ANSWER_MS + slack));
    // The first write draws the reset; a write after it fails (EPIPE, ECONNRESET).
    await eventually(() => {
      if (!socket.destroyed) socket.write('more');
      return failed || socket.destroyed;
    }, { what: 'the server to have closed the connection', timeoutMs: 2000, intervalMs: 100 });
  });

  describe('between requests on a kept-alive connection (Node\'s keep-alive timeout, 5 s, shorter than the headers timeout)', () => {
    const keepAliveClose = 6000; // Node's 5 s, and the second it adds
    const longHeadersTimeoutMs = 7000;
    beforeEach(async () => {
      await server.close();
      server = await startHttpServer(memory, { timeouts: { headersTimeoutMs: longHeadersTimeoutMs, requestTimeoutMs: longHeadersTimeoutMs } });
    });

    it('a second request begun and stalled gets 408 40801 at the headers timeout, not a silent close; an idle connection is closed at the keep-alive timeout', async function () {
      this.timeout(20_000);
      const [stalled, idle] = [await open(), await open()];
      for (const connection of [stalled, idle]) {
        connection.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        expectOk(await connection.nextResponse('GET /healthz'), 200);
      }
      const begun = performance.now();
      stalled.write('GET /healthz HTTP/1.1\r\nHo');
      const [timedOut, idleClosed] = await Promise.all([stalled.nextResponse('GET /healthz', longHeadersTimeoutMs + slack + 2000), idle.closedWithin(keepAliveClose + slack + 2000)]);
      expectError(timedOut, 408, 40801);
      expect(performance.now() - begun).to.be.within(longHeadersTimeoutMs - 100, longHeadersTimeoutMs + slack + 1000);
      await stalled.closedWithin(1000);
      expect(idleClosed).to.be.below(keepAliveClose + slack + 1000);
      expect(idle.unread()).to.equal('');
    });
  });

  it('a slow-header client and a never-reading pipelining client do not delay a normal request by more than 250 ms', async () => {
    const http = new HttpClient(server);
    for (let id = 1; id <= 200; id++) await server.store.useCases.createPlant.execute({ id, name: `plant number ${id}`.padEnd(150, '.') });
    const slow = await open();
    void slow.trickle(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'z'.repeat(100)}`, 10);
    expectOk(await http.get('/plants/7'), 200);
    const hoarder = connect(server.port, '127.0.0.1');
    hoarder.on('error', () => {});
    // Never reads: no data listener, paused.
    hoarder.pause();
    hoarder.write(`GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n\r\n`.repeat(2000));
    hoarders.push(hoarder);
    let slowest = 0;
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      expectOk(await http.get('/plants/7'), 200);
      slowest = Math.max(slowest, performance.now() - started);
    }
    expect(slowest, 'slowest normal request in ms').to.be.below(250);
  });
});
