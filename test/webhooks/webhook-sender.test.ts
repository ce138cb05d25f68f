import { expect } from 'chai';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebhookSender } from '../../adapters/webhooks/webhook-sender.js';
import type { PendingDelivery } from '../../core/index.js';
import { TEST_WEBHOOK_SECRET } from '../support/webhook-receiver.js';

const TIMEOUT_MS = 300;

describe('webhook sender: an answer whose body never ends', function () {
  this.timeout(20_000);
  let server: Server;
  let base: string;
  const trickling = new Set<ServerResponse>();
  const open = new Set<Socket>();
  beforeEach(async () => {
    server = createServer((request, response) => {
      request.resume();
      if (request.url === '/ok') return void response.writeHead(200).end('ok');
      // 200 at once, then a byte of body every 100 ms, for good.
      response.writeHead(200, { 'content-type': 'text/plain' });
      trickling.add(response);
      const drip = setInterval(() => response.write('.'), 100);
      response.on('close', () => {
        clearInterval(drip);
        trickling.delete(response);
      });
    });
    server.on('connection', (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const delivery = (endpoint: string, id: number): PendingDelivery => ({
    id: `msg_${id}`,
    endpoint,
    event: { type: 'plant.created', data: { id, name: 'Fern' } },
    createdAt: Date.now(),
    attempts: 0,
    dueAt: 0,
  });

  it('is cut off at the timeout, its connection closed: 70 of them leave the host\'s other endpoints served', async () => {
    const sender = new WebhookSender({ secret: TEST_WEBHOOK_SECRET, timeoutMs: TIMEOUT_MS, allowPrivate: true, userAgent: 'test' });
    try {
      // More than the agent's 64 connections to one host.
      const slow = await Promise.all(Array.from({ length: 70 }, (_, i) => sender.send(delivery(`${base}/slowbody`, i))));
      // Each answered 200 at once; the few beyond 64 waited for a connection, and may have run out of time.
      expect(slow.filter((attempt) => attempt.status === 200).length).to.be.at.least(64);
      expect(slow.filter((attempt) => attempt.status !== 200).map((attempt) => attempt.error)).to.deep.equal(slow.filter((attempt) => attempt.status !== 200).map(() => `no answer within ${TIMEOUT_MS} ms`));
      await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUT_MS));
      expect(trickling.size, 'bodies still being sent past the timeout').to.equal(0);
      const ok = await sender.send(delivery(`${base}/ok`, 100));
      expect([ok.status, ok.error]).to.deep.equal([200, undefined]);
    } finally {
      sender.close();
    }
  });
});
