import { expect } from 'chai';
import { once } from 'node:events';
import { startCli, type CliServer } from '../support/cli-process.js';
import { eventually } from '../support/eventually.js';
import { HttpClient } from '../support/http-client.js';
import { RawConnection } from '../support/raw-http.js';

const token = 'shutdown-token-0123456789abcdef';

describe('graceful shutdown', () => {
  let server: CliServer | undefined;
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
  });

  it('on SIGTERM: the request in flight completes normally, new connections are refused, exit 0 within the grace period', async () => {
    server = await startCli({ PLANT_STORE_TOKENS: token, PLANT_STORE_SHUTDOWN_GRACE_MS: '5000' });
    const http = await HttpClient.connect(server.url, token);
    const body = JSON.stringify({ id: 1, name: 'Sent in two halves' });
    // A body sent in two halves, the second after the signal: a raw connection can pause mid-body.
    const inFlight = await RawConnection.open(http.target);
    const head = `POST /plants HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`;
    inFlight.write(`${head}\r\n\r\n${body.slice(0, 10)}`);
    // Nothing on the server side tells when it has read the headers: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const signalledAt = Date.now();
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await eventually(() => server!.output().includes('shutting down'), { context: () => server!.output() });

    const refused: unknown = await http.get(http.root('/healthz')).catch((error: unknown) => error);
    expect((refused as { cause?: { code?: string } })?.cause?.code).to.equal('ECONNREFUSED');

    inFlight.write(body.slice(10));
    const response = await inFlight.nextResponse('POST /plants');
    inFlight.destroy();
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ id: 1, name: 'Sent in two halves' });

    const [code] = (await exited) as [number | null];
    expect(code).to.equal(0);
    expect(Date.now() - signalledAt).to.be.below(5000);
    expect(server.output()).to.include('shutting down');
  });
});
