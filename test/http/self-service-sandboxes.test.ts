import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually.js';
import { memoryStorage, startHttpServer, type HttpServer } from '../support/http-server.js';
import { RawConnection } from '../support/raw-http.js';
import type { StorageFactory } from '../storage/storage-contract.js';
import { diskStorage } from '../support/disk-storage.js';
import { tempDir } from '../support/temp-dir.js';

interface SignedUp {
  readonly sandbox: string;
  readonly token: string;
  readonly expiresAt: string;
}

// Self-service sandboxes over HTTP, as a docs playground's visitors use them: sign up with
// no token, use the token, hit the quota, end the sandbox or let it expire.
export function selfServiceSuite(storageName: string, storage: StorageFactory): void {
  describe(`self-service sandboxes over HTTP on ${storageName} storage`, function () {
    this.timeout(30_000);
    let server: HttpServer | undefined;
    const start = async (env: Record<string, string>) => (server = await startHttpServer(storage, { env: { PLANT_STORE_SANDBOX_SIGNUP: 'on', ...env } }));
    const as = (token: string) => server!.http.withToken(token);
    const signUp = async (): Promise<SignedUp> => {
      const answer = await server!.http.post('/sandboxes', { token: null });
      expect(answer.status, answer.text).to.equal(201);
      return answer.body as SignedUp;
    };
    afterEach(async () => {
      const log = server?.log() ?? '';
      await server?.close();
      server = undefined;
      // Tokens are never logged, nor their digests' source.
      expect(log).not.to.match(/psb_[A-Za-z0-9_-]{20,}/);
    });

    it('while sign-up is off, POST /sandboxes is 404 40400', async () => {
      server = await startHttpServer(storage);
      const answer = await server.http.post('/sandboxes', { token: null });
      expect([answer.status, answer.body.error]).to.deep.equal([404, 40400]);
    });

    it('a sign-up answers 201 with a sandbox, a token and its expiry; each token sees only its own sandbox', async () => {
      await start({ PLANT_STORE_SANDBOX_TTL: '1h' });
      const before = Date.now();
      const first = await signUp();
      const second = await signUp();
      expect(first.sandbox).to.match(/^[a-z0-9-]{1,64}$/).and.not.equal(second.sandbox);
      expect(first.token).to.match(/^psb_[A-Za-z0-9_-]{43}$/);
      expect(Date.parse(first.expiresAt) - before).to.be.within(3_600_000 - 1000, 3_600_000 + 5000);
      const [one, two] = [as(first.token), as(second.token)];
      expect((await one.create(1, 'mine')).status).to.equal(200);
      expect((await two.get('/plants/1')).status).to.equal(404);
      expect((await two.create(1, 'also mine')).status).to.equal(200);
      expect((await one.get('/plants')).body).to.deep.equal([{ id: 1, name: 'mine' }]);
      expect((await server!.http.get('/plants')).body, "the operators' token is in the default sandbox").to.deep.equal([]);
      expect((await as('psb_' + 'A'.repeat(43)).get('/plants')).status, 'a made-up sandbox token').to.equal(401);
    });

    it('the quota holds under 200 parallel creates at its edge: exactly the quota stored, the rest 403 40303', async () => {
      await start({ PLANT_STORE_SANDBOX_MAX_PLANTS: '100' });
      const client = as((await signUp()).token);
      for (let id = 1; id <= 90; id++) await client.create(id);
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => client.create(1000 + i)));
      expect(answers.filter((a) => a.status === 200)).to.have.length(10);
      const refused = answers.filter((a) => a.status === 403);
      expect(refused).to.have.length(190);
      expect(refused[0]!.body).to.deep.equal({ error: 40303, message: 'the sandbox holds its maximum of 100 plants' });
      expect(await client.allIds()).to.have.length(100);
    });

    it('sign-ups are limited per address, concurrent ones too: past the limit 429 42901 with Retry-After', async () => {
      await start({ PLANT_STORE_SANDBOX_SIGNUP_LIMIT: '3' });
      const answers = await Promise.all(Array.from({ length: 20 }, () => server!.http.post('/sandboxes', { token: null })));
      expect(answers.filter((answer) => answer.status === 201), 'concurrent sign-ups: exactly the limit').to.have.length(3);
      const refused = answers.find((answer) => answer.status !== 201)!;
      expect([refused.status, refused.body.error]).to.deep.equal([429, 42901]);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 3600);
    });

    it('DELETE /sandbox ends it at once: the token 401, the plants gone; a static token may not', async () => {
      await start({});
      const created = await signUp();
      const client = as(created.token);
      await client.create(1);
      const refused = await server!.http.delete('/sandbox');
      expect([refused.status, refused.body.error]).to.deep.equal([403, 40301]);
      expect((await client.delete('/sandbox')).status).to.equal(204);
      expect((await client.get('/plants')).status).to.equal(401);
      expect((await server!.store.sandbox(created.sandbox).list()).plants).to.deep.equal([]);
    });

    it('a create whose token was checked before DELETE /sandbox and whose body came after is 401 40102 and leaves no plant behind', async () => {
      await start({});
      const created = await signUp();
      const body = JSON.stringify({ id: 31337, name: 'after the end' });
      const connection = await RawConnection.open(server!);
      try {
        // The headers now: the token is checked before the body is read.
        connection.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${created.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await as(created.token).delete('/sandbox')).status).to.equal(204);
        connection.write(body);
        const answer = await connection.nextResponse('POST /plants');
        expect([answer.status, (answer.body as { error?: number }).error], answer.text).to.deep.equal([401, 40102]);
        expect(answer.headers.get('www-authenticate')).to.equal('Bearer realm="plant-store", error="invalid_token"');
      } finally {
        connection.destroy();
      }
      expect((await server!.store.sandbox(created.sandbox).list()).plants).to.deep.equal([]);
      expect(await server!.store.selfService!.sandboxes.registry.list()).to.deep.equal([]);
    });

    it('an idle sandbox expires after its lifetime: its token 401 40102, its plants removed', async () => {
      await start({ PLANT_STORE_SANDBOX_TTL: '2s' });
      const created = await signUp();
      const client = as(created.token);
      for (let id = 1; id <= 30; id++) await client.create(id);
      // Every request would keep it alive: wait, without one, until the sweep has removed it.
      const inside = server!.store.sandbox(created.sandbox);
      await eventually(async () => (await inside.list()).plants.length === 0, { timeoutMs: 8000, intervalMs: 100 });
      const answer = await client.get('/plants');
      expect([answer.status, answer.body.error]).to.deep.equal([401, 40102]);
    });

    it("operators see how many self-service sandboxes there are in the delivery state; a sandbox sees only its own deliveries", async () => {
      await start({ PLANT_STORE_WEBHOOK_URLS: 'https://hooks.example.org/in', PLANT_STORE_WEBHOOK_SECRET: `whsec_${Buffer.from('a-test-secret-of-24-bytes!').toString('base64')}`, PLANT_STORE_WEBHOOK_RETRY_SCHEDULE: '1h' });
      const sandboxes = [await signUp(), await signUp()];
      const operators = await server!.http.get('/webhooks/deliveries');
      expect(operators.body.sandboxes).to.equal(2);
      const own = await as(sandboxes[0]!.token).get('/webhooks/deliveries');
      expect(own.body).to.deep.equal({ pending: 0, failed: [] });
    });

    it('a new sandbox starts with the seed file\'s plants', async () => {
      using dir = tempDir('plant-store-seed-');
      const seed = join(dir.path, 'seed.jsonl');
      writeFileSync(seed, '{"id": 1, "name": "Fern"}\n{"id": 2, "name": "Monstera", "tag": "tropical"}\n');
      await start({ PLANT_STORE_SANDBOX_SEED: seed });
      const client = as((await signUp()).token);
      expect((await client.get('/plants')).body).to.deep.equal([
        { id: 1, name: 'Fern' },
        { id: 2, name: 'Monstera', tag: 'tropical' },
      ]);
    });
  });
}

selfServiceSuite('memory', memoryStorage);
selfServiceSuite('disk', diskStorage('plant-store-self-service-http-'));
