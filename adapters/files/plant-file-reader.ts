import { JsonDocumentScanner, MAX_ELEMENT_CHARS, type DocumentShape } from './json-document-scanner.js';
import { NOT_UTF8_MARK } from './utf8-chunks.js';

/** A parsed entry of a plants file (not yet validated as a plant), or why it could not be read. */
export type PlantFileEntry = { readonly line: number; readonly value: unknown } | { readonly line: number; readonly problem: string };

export type PlantFileFormat = 'json-lines' | DocumentShape;

/** What an entry that is not JSON is reported as: the API's own words for such a body. */
export const NOT_JSON = 'the plant is not valid JSON';
/** What an entry holding bytes that are not UTF-8 is reported as (read through utf8Chunks). */
export const NOT_UTF8 = 'the plant is not valid UTF-8';

/**
 * Reads plants from a text stream in any of the formats `plant-store import` accepts, one
 * entry at a time (memory stays bounded by the largest entry, whatever the file's size):
 * - JSON Lines: one JSON object per line (what `plant-store export` writes);
 * - a JSON array of plants;
 * - json-server's db.json: an object whose `plants` key holds the array.
 * The format is told from the start: `[` is an array; a first line that is a whole JSON
 * value is JSON Lines (unless it is a one-line `{ "plants": [...] }`); a `{` that opens a
 * longer document is json-server's. Give it bytes through utf8Chunks: an entry holding bytes
 * that are not UTF-8 is then reported, not read with U+FFFD in their place.
 */
export async function* readPlantFile(chunks: AsyncIterable<string>): AsyncGenerator<PlantFileEntry> {
  const iterator = chunks[Symbol.asyncIterator]();
  let head = '';
  // Enough text to decide: the first line, or the whole input if it has one line.
  for (;;) {
    const newline = head.replace(/^\uFEFF?\s*/, '').indexOf('\n');
    if (newline >= 0 && head.trim() !== '') break;
    if (head.length > MAX_ELEMENT_CHARS) break;
    const next = await iterator.next();
    if (next.done) break;
    head += next.value;
  }
  head = head.replace(/^\uFEFF/, '');
  const rest: AsyncIterable<string> = { [Symbol.asyncIterator]: () => iterator };
  const format = formatOf(head);
  if (format === 'json-lines') yield* jsonLines(head, rest);
  else yield* document(format, head, rest);
}

/** The format of a file starting with `head` (see readPlantFile). */
export function formatOf(head: string): PlantFileFormat {
  const text = head.trimStart();
  if (text.startsWith('[')) return 'array';
  if (!text.startsWith('{')) return 'json-lines';
  const firstLine = text.split('\n', 1)[0]!;
  const parsed = parseOrUndefined(firstLine);
  if (parsed === undefined) return /^\{\s*("plants"\s*:.*)?$/.test(firstLine.trim()) ? 'json-server' : 'json-lines';
  return isJsonServerObject(parsed) ? 'json-server' : 'json-lines';
}

async function* jsonLines(head: string, rest: AsyncIterable<string>): AsyncGenerator<PlantFileEntry> {
  let line = 0;
  let pending = head;
  const entry = (text: string): PlantFileEntry | undefined => {
    line++;
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    if (trimmed.includes(NOT_UTF8_MARK)) return { line, problem: NOT_UTF8 };
    const value = parseOrUndefined(trimmed);
    return value === undefined ? { line, problem: NOT_JSON } : { line, value };
  };
  let oversized = false; // the current line passed the limit: its text is being dropped
  const drain = function* (final: boolean): Generator<PlantFileEntry> {
    let from = 0;
    let newline: number;
    while ((newline = pending.indexOf('\n', from)) >= 0) {
      const found = oversized ? tooLarge(++line) : entry(pending.slice(from, newline));
      oversized = false;
      from = newline + 1;
      if (found) yield found;
    }
    pending = pending.slice(from);
    // A line longer than any plant can be is dropped as it comes, not buffered to its end.
    if (pending.length > MAX_ELEMENT_CHARS + 2) {
      oversized = true;
      pending = '';
    }
    if (final && (pending !== '' || oversized)) {
      const found = oversized ? tooLarge(++line) : entry(pending);
      if (found) yield found;
    }
  };
  yield* drain(false);
  for await (const chunk of rest) {
    pending += chunk;
    yield* drain(false);
  }
  yield* drain(true);
}

async function* document(shape: DocumentShape, head: string, rest: AsyncIterable<string>): AsyncGenerator<PlantFileEntry> {
  const scanner = new JsonDocumentScanner(shape);
  const toEntry = (element: ReturnType<JsonDocumentScanner['feed']>[number]): PlantFileEntry => {
    if ('problem' in element) return element;
    if (element.text.includes(NOT_UTF8_MARK)) return { line: element.line, problem: NOT_UTF8 };
    const value = parseOrUndefined(element.text);
    return value === undefined ? { line: element.line, problem: NOT_JSON } : { line: element.line, value };
  };
  for (const element of scanner.feed(head)) yield toEntry(element);
  for await (const chunk of rest) for (const element of scanner.feed(chunk)) yield toEntry(element);
  for (const element of scanner.end()) yield toEntry(element);
}

const tooLarge = (line: number): PlantFileEntry => ({ line, problem: `the plant is larger than ${MAX_ELEMENT_CHARS} characters` });

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isJsonServerObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray((value as { plants?: unknown }).plants);
}
