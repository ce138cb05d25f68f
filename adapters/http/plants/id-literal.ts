/**
 * JSON.parse reads a number to the nearest double, so `0.99999999999999999` and
 * `9007199254740990.5` arrive as the whole numbers 1 and 9007199254740990. The contract's
 * id is a JSON integer: the body's text decides. True when `parsed` is an object whose `id`
 * is a whole number read from a literal whose value is not (the last `id` member, the one
 * JSON.parse keeps). A literal whose value is whole (`1.0`, `1e2`) is an integer, as in
 * JSON Schema.
 */
export function idRoundedByParsing(text: string, parsed: unknown): boolean {
  if (parsed === null || typeof parsed !== 'object' || !Number.isInteger((parsed as { id?: unknown }).id)) return false;
  // Cheap exit, the usual body: no fraction or exponent next to a digit anywhere in it.
  if (!FRACTION_OR_EXPONENT.test(text)) return false;
  const literal = lastIdLiteral(text);
  return literal !== undefined && !isWholeLiteral(literal);
}

const FRACTION_OR_EXPONENT = /\d[.eE]/;
const NUMBER_LITERAL = /-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;

/** The literal of the top-level object's last `id` member, when it is a number; `text` is valid JSON. */
function lastIdLiteral(text: string): string | undefined {
  let depth = 0;
  let expectingKey = false;
  let key: string | undefined;
  let literal: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && expectingKey) key = JSON.parse(text.slice(i, end)) as string;
      expectingKey = false;
      i = end - 1;
    } else if (c === '{' || c === '[') {
      depth++;
      expectingKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',') {
      expectingKey = depth === 1;
    } else if (c === ':' && depth === 1) {
      if (key === 'id') {
        let start = i + 1;
        while (text[start] === ' ' || text[start] === '\t' || text[start] === '\n' || text[start] === '\r') start++;
        NUMBER_LITERAL.lastIndex = start;
        literal = NUMBER_LITERAL.exec(text)?.[0];
      }
      key = undefined;
    }
  }
  return literal;
}

/** The index just past the string starting at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

/** Whether a JSON number literal's value is a whole number: every digit after its point is 0. */
function isWholeLiteral(literal: string): boolean {
  NUMBER_LITERAL.lastIndex = 0;
  const [, whole = '', fraction = '', exponent = '0'] = NUMBER_LITERAL.exec(literal) ?? [];
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  return /^0*$/.test(digits.slice(Math.max(point, 0)));
}
