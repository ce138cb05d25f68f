import { expect } from 'chai';
import { once } from 'node:events';
import { request } from 'node:http';
import { startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';

const token = 'shutdown-token-0123456789abcdef';

describe('graceful shutdown', () => {
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
  });

  it('on SIGTERM: the request in flight completes normally, new connections are refused, exit 0 within the grace period', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_SHUTDOWN_GRACE_MS: '5000' });
    const body = JSON.stringify({ id: 1, name: 'Sent in two halves' });
    const url = new URL(`${server.url}/plants`);
    const inFlight = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const responded = once(inFlight, 'response');
    inFlight.write(body.slice(0, 10));
    // Nothing on the server side tells when it has read the headers: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalledAt = Date.now();
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await eventually(() => server!.output().includes('shutting down'), { context: () => server!.output() });

    let refused: unknown;
    try {
      await fetch(`${server.url}/healthz`);
    } catch (error) {
      refused = error;
    }
    expect((refused as { cause?: { code?: string } })?.cause?.code).to.equal('ECONNREFUSED');

    inFlight.end(body.slice(10));
    const [response] = (await responded) as [import('node:http').IncomingMessage];
    let text = '';
    for await (const chunk of response) text += chunk;
    expect(response.statusCode).to.equal(200);
    expect(JSON.parse(text)).to.deep.equal({ id: 1, name: 'Sent in two halves' });

    const [code] = (await exited) as [number | null];
    expect(code).to.equal(0);
    expect(Date.now() - signalledAt).to.be.below(5000);
    expect(server.output()).to.include('shutting down');
  });
});
