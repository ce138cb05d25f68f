import { expect } from 'chai';
import type { StorageFactory } from '../storage/storage-contract.js';
import { chunkedPost, rawExchange } from '../support/raw-http.js';
import { expectError, expectOk, expectPlant, expectPlantList } from '../support/http-expect.js';
import { useHttpServer } from '../support/http-server.js';

const LIMIT = 16 * 1024;
const cactus = '\u{1F335}'; // one code point, two UTF-16 units, four UTF-8 bytes

/** A JSON object body of exactly `bytes` bytes, holding a valid plant plus padding. */
function bodyOfSize(bytes: number, id: number): string {
  const prefix = `{"id":${id},"name":"Padded","padding":"`;
  return `${prefix}${'x'.repeat(bytes - prefix.length - 2)}"}`;
}

/** What POST /plants accepts and refuses, field by field and body by body. */
export function plantValidationSuite(storage: StorageFactory): void {
  describe('POST /plants validation', () => {
    const t = useHttpServer(storage);

    /** Each raw JSON body must be refused with 400 40001 naming `field`; nothing is stored. */
    async function expectInvalid(field: string, bodies: readonly string[]): Promise<void> {
      for (const raw of bodies) expectError(await t.http.post('/plants', { raw }), 400, 40001, field);
      expectPlantList(await t.http.get('/plants'), []);
    }

    it('an id that is not a JSON integer from 1 to 2^53-1 is 400 40001 naming id', async () => {
      await expectInvalid('id', [
        '{"id":"12","name":"Fern"}',
        '{"id":1.5,"name":"Fern"}',
        '{"id":0,"name":"Fern"}',
        '{"id":-1,"name":"Fern"}',
        '{"id":9007199254740992,"name":"Fern"}',
        '{"id":true,"name":"Fern"}',
        '{"id":null,"name":"Fern"}',
        '{"id":{"$gt":0},"name":"Fern"}',
        '{"id":[1],"name":"Fern"}',
        '{"name":"Fern"}',
      ]);
    });

    it('an id literal whose value is not whole is 400 40001 even where JSON.parse rounds it to a whole number; a whole one with a fraction or exponent is an integer', async () => {
      await expectInvalid('id', [
        '{"id":0.99999999999999999,"name":"Fern"}',
        '{"id":1.0000000000000001,"name":"Fern"}',
        '{"id":9007199254740990.5,"name":"Fern"}',
        '{"id":12345678901234567e-1,"name":"Fern"}',
        // The last id member is the one JSON.parse keeps; a key may be escaped.
        '{"id":5,"name":"Fern","id":0.99999999999999999}',
        '{"\\u0069d":0.99999999999999999,"name":"Fern"}',
      ]);
      for (const [raw, id] of [
        ['{"id":1.0,"name":"Fern"}', 1],
        ['{"id":2e0,"name":"Fern"}', 2],
        ['{"id":30E-1,"name":"Fern"}', 3],
        ['{"id":0.4e1,"name":"Fern"}', 4],
        ['{"id":0.99999999999999999,"id":5,"name":"Fern 1.5e2"}', 5],
        ['{"name":"Fe2 0.5","nested":{"id":0.99999999999999999},"id":6}', 6],
      ] as const) {
        const created = await t.http.post('/plants', { raw });
        expectOk(created, 200);
        expect((created.body as { id: number }).id, raw).to.equal(id);
      }
    });

    it('a name that is missing, empty, blank, over 200 characters or not a string is 400 40001 naming name', async () => {
      await expectInvalid('name', [
        '{"id":1}',
        '{"id":1,"name":""}',
        '{"id":1,"name":"   "}',
        JSON.stringify({ id: 1, name: 'n'.repeat(201) }),
        '{"id":1,"name":42}',
        '{"id":1,"name":null}',
      ]);
    });

    it('a tag that is empty, blank, over 50 characters or not a string is 400 40001 naming tag', async () => {
      await expectInvalid('tag', [
        '{"id":1,"name":"Fern","tag":""}',
        '{"id":1,"name":"Fern","tag":"  "}',
        JSON.stringify({ id: 1, name: 'Fern', tag: 't'.repeat(51) }),
        '{"id":1,"name":"Fern","tag":5}',
      ]);
    });

    it('a null tag is accepted and means no tag', async () => {
      const created = await t.http.post('/plants', { raw: '{"id":1,"name":"Fern","tag":null}' });
      expectOk(created, 200);
      expectPlant(created.body, { id: 1, name: 'Fern' });
      expectPlant((await t.http.get('/plants/1')).body, { id: 1, name: 'Fern' });
    });

    it('the limits themselves are accepted: 200-character name, 50-character tag, id 9007199254740991', async () => {
      const name = 'n'.repeat(200);
      const tag = 't'.repeat(50);
      const created = await t.http.post('/plants', { raw: `{"id":9007199254740991,"name":"${name}","tag":"${tag}"}` });
      expectOk(created, 200);
      expect(created.text).to.include('"id":9007199254740991');
      expect(created.headers.get('location')).to.equal('/plants/9007199254740991');
      expectPlant((await t.http.get('/plants/9007199254740991')).body, { id: 9007199254740991, name, tag });
    });

    it('names and tags count characters, not UTF-16 units: an emoji is one character', async () => {
      const name = cactus.repeat(200);
      const tag = cactus.repeat(50);
      const created = await t.http.post('/plants', { json: { id: 1, name, tag } });
      expectOk(created, 200);
      expectPlant(created.body, { id: 1, name, tag });
      expectPlant((await t.http.get('/plants/1')).body, { id: 1, name, tag });
      expectError(await t.http.post('/plants', { json: { id: 2, name: cactus.repeat(201) } }), 400, 40001, 'name');
      expectError(await t.http.post('/plants', { json: { id: 3, name: 'Cactus', tag: cactus.repeat(51) } }), 400, 40001, 'tag');
    });

    it('a name is stored as sent, surrounding spaces included', async () => {
      expectOk(await t.http.post('/plants', { json: { id: 1, name: '  Fern  ' } }), 200);
      expectPlant((await t.http.get('/plants/1')).body, { id: 1, name: '  Fern  ' });
    });

    it('unknown fields and __proto__ are ignored: not echoed, not stored, no prototype touched', async () => {
      const raw =
        '{"id":5,"name":"Fern","extra":"x","_id":"abc","$where":"1","owner":{"admin":true},' +
        '"__proto__":{"tag":"polluted","admin":true},"constructor":{"prototype":{"polluted":true}}}';
      const created = await t.http.post('/plants', { raw });
      expectOk(created, 200);
      expectPlant(created.body, { id: 5, name: 'Fern' });
      expectPlant((await t.http.get('/plants/5')).body, { id: 5, name: 'Fern' });
      expectPlantList(await t.http.get('/plants'), [{ id: 5, name: 'Fern' }]);
      expect(({} as Record<string, unknown>)['admin']).to.equal(undefined);
      expect(({} as Record<string, unknown>)['polluted']).to.equal(undefined);
    });

    it('a body that is not a JSON object is 400 40002: array, string, number, null', async () => {
      for (const raw of ['[{"id":1,"name":"Fern"}]', '"Fern"', '42', 'null']) {
        expectError(await t.http.post('/plants', { raw }), 400, 40002);
      }
      expectPlantList(await t.http.get('/plants'), []);
    });

    it('malformed JSON is 400 40002', async () => {
      for (const raw of ['{"id":1,', "{'id':1,'name':'Fern'}", '{"id":1,"name":"Fern"}}', 'id=1&name=Fern']) {
        expectError(await t.http.post('/plants', { raw }), 400, 40002);
      }
    });

    it('an empty body is 400 40002, with Content-Length: 0 or with no body at all', async () => {
      expectError(await t.http.post('/plants', { raw: '' }), 400, 40002);
      const head = ['POST /plants HTTP/1.1', 'Host: 127.0.0.1', `Authorization: Bearer ${t.server.token}`, 'Content-Type: application/json', 'Connection: close'];
      expectError(await rawExchange(t.server, head.join('\r\n')), 400, 40002);
    });

    it('a body over 16 KiB is 413 41301 with a Content-Length; exactly 16 KiB is accepted', async () => {
      expectError(await t.http.post('/plants', { raw: bodyOfSize(LIMIT + 1, 1) }), 413, 41301);
      expectPlantList(await t.http.get('/plants'), []);
      const exact = await t.http.post('/plants', { raw: bodyOfSize(LIMIT, 2) });
      expectOk(exact, 200);
      expectPlant(exact.body, { id: 2, name: 'Padded' });
    });

    it('a body over 16 KiB sent chunked, without Content-Length, is 413 41301', async () => {
      const body = bodyOfSize(LIMIT + 1024, 1);
      const chunks = Array.from({ length: Math.ceil(body.length / 1000) }, (_, i) => body.slice(i * 1000, (i + 1) * 1000));
      const headers = { Authorization: `Bearer ${t.server.token}`, 'Content-Type': 'application/json', Connection: 'close' };
      expectError(await chunkedPost(t.server, '/plants', headers, chunks), 413, 41301);
      expectPlantList(await t.http.get('/plants'), []);
      const small = await chunkedPost(t.server, '/plants', headers, ['{"id":3,', '"name":"Chunked"}']);
      expectOk(small, 200);
      expectPlant(small.body, { id: 3, name: 'Chunked' });
    });

    it('text that is not Unicode is refused, never stored changed: bytes that are not UTF-8 are 400 40002, an unpaired surrogate escape 400 40001', async () => {
      const wrapped = (inner: number[]) => Buffer.concat([Buffer.from('{"id":1,"name":"a'), Buffer.from(inner), Buffer.from('b"}')]);
      // A lone byte above 0x7f, an overlong '/', an encoded surrogate, a truncated 4-byte sequence.
      for (const bytes of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]]) {
        expectError(await t.http.post('/plants', { raw: wrapped(bytes) }), 400, 40002, 'UTF-8');
      }
      await expectInvalid('name', ['{"id":1,"name":"a\\ud800b"}', '{"id":1,"name":"\\udfff"}']);
      await expectInvalid('tag', ['{"id":1,"name":"Fern","tag":"\\ud83d"}']);
      // Escaped or sent as UTF-8, a pair is one character, stored and read back as sent.
      expectOk(await t.http.post('/plants', { raw: '{"id":1,"name":"a\\ud83c\\udf35b"}' }), 200);
      expectOk(await t.http.post('/plants', { raw: Buffer.from(`{"id":2,"name":"a${cactus}b","tag":"\u00e9t\u00e9"}`) }), 200);
      expectPlantList(await t.http.get('/plants'), [
        { id: 1, name: `a${cactus}b` },
        { id: 2, name: `a${cactus}b`, tag: 'été' },
      ]);
    });

    it('a body that is not labelled application/json is 415 41501', async () => {
      const json = '{"id":1,"name":"Fern"}';
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', null]) {
        expectError(await t.http.post('/plants', { raw: json, contentType }), 415, 41501);
      }
      expectPlantList(await t.http.get('/plants'), []);
      expectOk(await t.http.post('/plants', { raw: json, contentType: 'application/json; charset=utf-8' }), 200);
    });
  });
}
