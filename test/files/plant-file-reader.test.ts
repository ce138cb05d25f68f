import { expect } from 'chai';
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { formatOf, NOT_JSON, NOT_UTF8, readPlantFile, type PlantFileEntry } from '../../adapters/files/plant-file-reader.js';
import { NOT_UTF8_MARK, utf8Chunks } from '../../adapters/files/utf8-chunks.js';

/** Feeds `text` in pieces of `size` characters, so every split point gets exercised. */
async function read(text: string, size = text.length || 1): Promise<PlantFileEntry[]> {
  async function* chunks() {
    for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
  }
  const entries: PlantFileEntry[] = [];
  for await (const entry of readPlantFile(chunks())) entries.push(entry);
  return entries;
}

const jsonServerDb = `{
  "plants": [
    { "id": 1, "name": "Monstera", "tag": "tropical" },
    {
      "id": 2,
      "name": "Fern, \\"Boston\\" [x]"
    }
  ],
  "comments": [{ "id": 1, "body": "] not the end" }],
  "profile": { "name": "typicode" }
}
`;

describe('reading plant files', () => {
  it('tells the three formats from their start', () => {
    expect(formatOf('{"id":1,"name":"a"}\n{"id":2')).to.equal('json-lines');
    expect(formatOf('  [\n{"id":1}')).to.equal('array');
    expect(formatOf('{\n  "plants": [')).to.equal('json-server');
    expect(formatOf('{"plants":[{"id":1,"name":"a"}]}')).to.equal('json-server');
    expect(formatOf('{"id":1,"name":')).to.equal('json-lines');
  });

  it('JSON Lines: one entry per non-blank line, numbered by line, bad JSON reported', async () => {
    const text = '{"id":1,"name":"a"}\r\n\n{"id":2,"name":"b","tag":"t"}\nnot json\n{"id":3,"name":"c"}';
    for (const size of [1, 3, 7, text.length]) {
      expect(await read(text, size), `chunks of ${size}`).to.deep.equal([
        { line: 1, value: { id: 1, name: 'a' } },
        { line: 3, value: { id: 2, name: 'b', tag: 't' } },
        { line: 4, problem: NOT_JSON },
        { line: 5, value: { id: 3, name: 'c' } },
      ]);
    }
  });

  it('a JSON array: each element with the line it starts on, whatever the chunking', async () => {
    const text = '[\n  {"id": 1, "name": "a, [b]"},\n  {"id": 2,\n   "name": "c\\"}"},\n  {"id": 3, oops},\n  7\n]\n';
    for (const size of [1, 2, 5, text.length]) {
      expect(await read(text, size), `chunks of ${size}`).to.deep.equal([
        { line: 2, value: { id: 1, name: 'a, [b]' } },
        { line: 3, value: { id: 2, name: 'c"}' } },
        { line: 5, problem: NOT_JSON },
        { line: 6, value: 7 },
      ]);
    }
  });

  it("json-server's db.json: only the plants array, other keys skipped", async () => {
    for (const size of [1, 4, jsonServerDb.length]) {
      expect(await read(jsonServerDb, size), `chunks of ${size}`).to.deep.equal([
        { line: 3, value: { id: 1, name: 'Monstera', tag: 'tropical' } },
        { line: 4, value: { id: 2, name: 'Fern, "Boston" [x]' } },
      ]);
    }
  });

  it('a document that ends early, or an object without plants, is reported', async () => {
    expect(await read('[{"id":1,"name":"a"},\n{"id":2')).to.deep.equal([
      { line: 1, value: { id: 1, name: 'a' } },
      { line: 2, problem: 'the file ends before its JSON document does' },
    ]);
    expect(await read('{\n "posts": []\n}\n')).to.deep.equal([{ line: 4, problem: 'the JSON object has no "plants" array' }]);
  });

  it('a document whose elements are uncertain is reported where it goes wrong, and the rest not read', async () => {
    const stopped = (line: number, problem: string) => ({ line, problem: `${problem}; the rest of the file is not read` });
    const cases: [string, PlantFileEntry[]][] = [
      ['[{"id":10,"name":"a"}}', [stopped(1, 'the JSON document is malformed here ("}" where "]" should be)')]],
      ['[{"id":11,"name":"a"}]\n[{"id":13,"name":"b"}]', [{ line: 1, value: { id: 11, name: 'a' } }, stopped(2, 'the file goes on after its JSON document ends')]],
      ['[{"id":1,"name":"a"},]', [{ line: 1, value: { id: 1, name: 'a' } }, stopped(1, 'a comma with no plant after it')]],
      ['[{"id":1,"name":"a"},,{"id":2,"name":"b"}]', [{ line: 1, value: { id: 1, name: 'a' } }, stopped(1, 'a comma with no plant before it')]],
      ['[,{"id":2,"name":"b"}]', [stopped(1, 'a comma with no plant before it')]],
      ['{"plants":[{"id":1,"name":"a"}]}\n{"plants":[]}', [{ line: 1, value: { id: 1, name: 'a' } }, stopped(2, 'the file goes on after its JSON document ends')]],
      ['{\n"plants":[{"id":1,"name":"a"}]]', [{ line: 2, value: { id: 1, name: 'a' } }, stopped(2, 'the JSON document is malformed here ("]" where "}" should be)')]],
      [`{\n"deep":${'['.repeat(1500)}`, [stopped(2, 'the document nests deeper than 1000')]],
    ];
    for (const [text, expected] of cases) {
      for (const size of [1, 3, text.length]) expect(await read(text, size), `${text.slice(0, 40)} in chunks of ${size}`).to.deep.equal(expected);
    }
    // Still accepted: an empty array, and an empty plants array.
    expect(await read('[]')).to.deep.equal([]);
    expect(await read('{"plants": [] }\n')).to.deep.equal([]);
  });

  it('bytes that are not UTF-8 make their entry invalid, in every format, wherever the chunks split', async () => {
    const bytes = (text: string, bad: number[]) => Buffer.concat([Buffer.from(text.split('@')[0]!), Buffer.from(bad), Buffer.from(text.split('@')[1]!)]);
    const files: [Buffer, PlantFileEntry[]][] = [
      [bytes('{"id":1,"name":"caf@"}\n{"id":2,"name":"ok \u00e9 \ufffd"}\n', [0xe9]), [{ line: 1, problem: NOT_UTF8 }, { line: 2, value: { id: 2, name: 'ok é \ufffd' } }]],
      [bytes('[{"id":1,"name":"a@"},\n{"id":2,"name":"b"}]', [0xed, 0xa0, 0x80]), [{ line: 1, problem: NOT_UTF8 }, { line: 2, value: { id: 2, name: 'b' } }]],
      [bytes('{"plants":[{"id":1,"name":"@"}]}\n', [0xc0, 0xaf]), [{ line: 1, problem: NOT_UTF8 }]],
      [bytes('{"id":1,"name":"cut short @', [0xe2, 0x82]), [{ line: 1, problem: NOT_UTF8 }]],
      [Buffer.from('{"id":1,"name":"🌵 ✓ é"}\n'), [{ line: 1, value: { id: 1, name: '🌵 ✓ é' } }]],
    ];
    for (const [file, expected] of files) {
      for (const size of [1, 2, 3, 5, file.length]) {
        async function* pieces() {
          for (let i = 0; i < file.length; i += size) yield file.subarray(i, i + size);
        }
        const entries: PlantFileEntry[] = [];
        for await (const entry of readPlantFile(utf8Chunks(pieces()))) entries.push(entry);
        expect(entries, `${file.toString('latin1').slice(0, 30)} in chunks of ${size}`).to.deep.equal(expected);
      }
    }
  });

  it('utf8Chunks reads any bytes as a UTF-8 decoder does where they are valid, and marks every other byte', async () => {
    fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.string({ unit: 'grapheme' }).map((text) => Buffer.from(text)), fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b))), { maxLength: 8 }), fc.integer({ min: 1, max: 7 }), async (parts, size) => {
        const all = Buffer.concat(parts);
        async function* pieces() {
          for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
        }
        let text = '';
        for await (const chunk of utf8Chunks(pieces())) text += chunk;
        // Where the bytes are UTF-8, the decoder's text; where not, marks where it has U+FFFD
        // (it replaces a maximal invalid subpart with one U+FFFD, this marks each byte of it).
        const decoder = new TextDecoder('utf-8').decode(all);
        expect(text.includes(NOT_UTF8_MARK), 'marked only where the bytes are not UTF-8').to.equal(!isUtf8(all));
        expect(text.replace(/\uDFFF/g, '\uFFFD').replace(/\uFFFD+/g, '\uFFFD'), 'the same text otherwise').to.equal(decoder.replace(/\uFFFD+/g, '\uFFFD'));
      }),
    );
  });

  it('empty input has no entries', async () => {
    expect(await read('')).to.deep.equal([]);
    expect(await read('\n\n')).to.deep.equal([]);
  });
});
