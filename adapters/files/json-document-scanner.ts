/** One element of the plants array, as text, with the line it starts on; or why the document is unreadable. */
export type ScannedElement = { readonly line: number; readonly text: string } | { readonly line: number; readonly problem: string };

/** Where the plants are in the document: the top-level array, or the `plants` array of a top-level object. */
export type DocumentShape = 'array' | 'json-server';

/** Longest element kept in memory; a larger one is reported, not buffered. */
export const MAX_ELEMENT_CHARS = 1024 * 1024;
/** Deepest nesting followed (a plant nests two deep); deeper is reported, and the rest not read. */
const MAX_DEPTH = 1000;

/**
 * Splits a JSON document fed in chunks into the texts of its plants array's elements, without
 * holding more than one element: a JSON array `[ {...}, ... ]`, or json-server's
 * `{ "plants": [ ... ], "other": ... }` (other keys are skipped). It tracks only nesting,
 * strings and commas; each element's text is left to JSON.parse, so a broken element is
 * reported by line and the next one is still read. What would make the elements themselves
 * uncertain is reported, and the rest of the input not read: a bracket that closes what it
 * did not open, anything after the document, an empty element (`[a,,b]`, `[a,]`).
 */
export class JsonDocumentScanner {
  private line = 1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Depth inside the plants array, once it is entered; 0 before and after. */
  private targetDepth = 0;
  private targetDone = false;
  private element: string[] | undefined;
  private elementChars = 0;
  private elementLine = 0;
  private elementTooLarge = false;
  /** json-server shape: the key being read at the top level, and the last complete one. */
  private key: string | undefined;
  private lastKey = '';
  private readonly out: ScannedElement[] = [];
  /** The closing character of each open bracket, innermost last. */
  private readonly closers: number[] = [];
  /** The root has closed: only whitespace may follow. */
  private rootClosed = false;
  /** In the plants array, a comma came and no element since. */
  private afterComma = false;
  /** A problem that leaves the rest unreadable was reported: the rest is not read. */
  private stopped = false;

  constructor(private readonly shape: DocumentShape) {}

  /** Scans a chunk and returns the elements it completed. */
  feed(chunk: string): ScannedElement[] {
    if (this.stopped) return [];
    let start = 0; // where the part of `chunk` that belongs to the current element starts
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) {
          this.inString = false;
          if (this.key !== undefined) {
            this.lastKey = this.key + chunk.slice(start, i);
            this.key = undefined;
          }
        }
        continue;
      }
      if (c === 32 || c === 10 || c === 13 || c === 9) continue;
      if (this.rootClosed) return this.stop('the file goes on after its JSON document ends');
      const inTarget = this.targetDepth !== 0 && this.depth === this.targetDepth;
      if (inTarget && (c === 44 /* , */ || c === 93 /* ] */)) {
        if (this.element !== undefined) {
          this.keep(chunk.slice(start, i));
          this.finishElement();
        } else if (c === 44 || this.afterComma) {
          return this.stop(c === 44 ? 'a comma with no plant before it' : 'a comma with no plant after it');
        }
        this.afterComma = c === 44;
        if (c === 93) {
          this.closers.pop();
          this.depth--;
          this.targetDepth = 0;
          this.targetDone = true;
          this.rootClosed = this.depth === 0;
        }
        continue;
      }
      if (inTarget && this.element === undefined) {
        this.afterComma = false;
        this.element = [];
        this.elementChars = 0;
        this.elementLine = this.line;
        this.elementTooLarge = false;
        start = i;
      }
      if (c === 34) {
        this.inString = true;
        // json-server shape: a string directly inside the top-level object, before its colon, is a key.
        if (this.shape === 'json-server' && this.depth === 1 && this.key === undefined && this.awaitingKey) {
          this.key = '';
          start = i + 1;
          this.awaitingKey = false;
        }
      } else if (c === 123 /* { */ || c === 91 /* [ */) {
        if (this.depth === MAX_DEPTH) return this.stop(`the document nests deeper than ${MAX_DEPTH}`);
        this.closers.push(c + 2); // { → }, [ → ]
        this.depth++;
        if (this.depth === 1) {
          this.checkRoot(c);
          if (this.shape === 'array') this.targetDepth = 1;
        } else if (this.shape === 'json-server' && this.depth === 2 && c === 91 && this.lastKey === 'plants' && !this.targetDone) {
          this.targetDepth = 2;
        }
        if (this.depth === 1 && this.shape === 'json-server') this.awaitingKey = true;
      } else if (c === 125 /* } */ || c === 93) {
        const expected = this.closers.pop();
        if (expected !== c) return this.stop(`the JSON document is malformed here ("${String.fromCharCode(c)}" where ${expected === undefined ? 'nothing is open' : `"${String.fromCharCode(expected)}" should be`})`);
        this.depth--;
        this.rootClosed = this.depth === 0;
      } else if (c === 44 && this.depth === 1 && this.shape === 'json-server') {
        this.awaitingKey = true;
        this.lastKey = '';
      }
    }
    if (this.element !== undefined) this.keep(chunk.slice(start));
    else if (this.key !== undefined) this.key += chunk.slice(start);
    return this.out.splice(0);
  }

  /** Call at the end of input: reports a document that ended early or held no plants array. */
  end(): ScannedElement[] {
    if (this.stopped) return this.out.splice(0);
    if (this.inString || this.depth > 0) this.out.push({ line: this.line, problem: 'the file ends before its JSON document does' });
    else if (this.shape === 'json-server' && !this.targetDone) this.out.push({ line: this.line, problem: 'the JSON object has no "plants" array' });
    return this.out.splice(0);
  }

  private awaitingKey = false;

  /** Reports `problem` on this line, drops the element under way, and reads no more: the elements that came are kept. */
  private stop(problem: string): ScannedElement[] {
    this.stopped = true;
    this.element = undefined;
    this.out.push({ line: this.line, problem: `${problem}; the rest of the file is not read` });
    return this.out.splice(0);
  }

  private checkRoot(c: number): void {
    const wanted = this.shape === 'array' ? 91 : 123;
    if (c !== wanted) this.out.push({ line: this.line, problem: `the document must be ${this.shape === 'array' ? 'a JSON array' : 'a JSON object'}` });
  }

  private keep(text: string): void {
    if (this.elementTooLarge) return;
    this.elementChars += text.length;
    if (this.elementChars > MAX_ELEMENT_CHARS) {
      this.elementTooLarge = true;
      this.element = [];
      return;
    }
    this.element!.push(text);
  }

  private finishElement(): void {
    const line = this.elementLine;
    this.out.push(this.elementTooLarge ? { line, problem: `the plant is larger than ${MAX_ELEMENT_CHARS} characters` } : { line, text: this.element!.join('') });
    this.element = undefined;
  }
}
