/** One element of the plants array, as text, with the line it starts on; or why the document is unreadable. */
export type ScannedElement = { readonly line: number; readonly text: string } | { readonly line: number; readonly problem: string };

/** Where the plants are in the document: the top-level array, or the `plants` array of a top-level object. */
export type DocumentShape = 'array' | 'json-server';

/** Longest element kept in memory; a larger one is reported, not buffered. */
export const MAX_ELEMENT_CHARS = 1024 * 1024;

/**
 * Splits a JSON document fed in chunks into the texts of its plants array's elements, without
 * holding more than one element: a JSON array `[ {...}, ... ]`, or json-server's
 * `{ "plants": [ ... ], "other": ... }` (other keys are skipped). It tracks only nesting,
 * strings and commas; each element's text is left to JSON.parse, so a broken element is
 * reported by line and the next one is still read.
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

  constructor(private readonly shape: DocumentShape) {}

  /** Scans a chunk and returns the elements it completed. */
  feed(chunk: string): ScannedElement[] {
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
      const inTarget = this.targetDepth !== 0 && this.depth === this.targetDepth;
      if (inTarget && (c === 44 /* , */ || c === 93 /* ] */)) {
        if (this.element !== undefined) {
          this.keep(chunk.slice(start, i));
          this.finishElement();
        }
        if (c === 93) {
          this.depth--;
          this.targetDepth = 0;
          this.targetDone = true;
        }
        continue;
      }
      if (inTarget && this.element === undefined) {
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
        this.depth++;
        if (this.depth === 1) {
          this.checkRoot(c);
          if (this.shape === 'array') this.targetDepth = 1;
        } else if (this.shape === 'json-server' && this.depth === 2 && c === 91 && this.lastKey === 'plants' && !this.targetDone) {
          this.targetDepth = 2;
        }
        if (this.depth === 1 && this.shape === 'json-server') this.awaitingKey = true;
      } else if (c === 125 /* } */ || c === 93) {
        this.depth--;
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
    if (this.inString || this.depth > 0) this.out.push({ line: this.line, problem: 'the file ends before its JSON document does' });
    else if (this.shape === 'json-server' && !this.targetDone) this.out.push({ line: this.line, problem: 'the JSON object has no "plants" array' });
    return this.out.splice(0);
  }

  private awaitingKey = false;

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
