import { expect } from 'chai';
import { formatOf, NOT_JSON, readPlantFile, type PlantFileEntry } from '../../adapters/files/plant-file-reader.js';

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

  it('empty input has no entries', async () => {
    expect(await read('')).to.deep.equal([]);
    expect(await read('\n\n')).to.deep.equal([]);
  });
});
