import { string } from 'yup';
import { BrokenRules } from './broken-rules.js';
import { ErrorCode } from './error-codes.js';
import { plantIdParameter } from './parameter-validation.js';
import { MAX_NAME_LENGTH, MAX_TAG_LENGTH, type Plant } from './plant.js';
import { PlantStoreError } from './plant-store-error.js';
import { isBoundedText, isWellFormed } from './text-rules.js';

const nameRule = `name must be a string of 1 to ${MAX_NAME_LENGTH} characters, not only whitespace`;
const tagRule = `tag must be a string of 1 to ${MAX_TAG_LENGTH} characters, not only whitespace, or null`;
const unicodeRule = (field: string) => `${field} must be Unicode text: it holds an unpaired surrogate (\\ud800 to \\udfff alone)`;

// strict: JSON types are taken as sent — "12" is not an id, 12 is not a name. One schema per
// field (see BrokenRules).
export const fieldSchemas = {
  // The same rule as an id given as a parameter (the path's id, delete's argument).
  id: plantIdParameter.schema,
  name: string()
    .strict()
    .defined('name is required')
    .nonNullable('name is required')
    .typeError(nameRule)
    .test('unicode', unicodeRule('name'), (value) => typeof value !== 'string' || isWellFormed(value))
    .test('bounded', nameRule, (value) => isBoundedText(value, MAX_NAME_LENGTH)),
  tag: string()
    .strict()
    .nullable()
    .optional()
    .typeError(tagRule)
    .test('unicode', unicodeRule('tag'), (value) => typeof value !== 'string' || isWellFormed(value))
    .test('bounded', tagRule, (value) => value == null || isBoundedText(value, MAX_TAG_LENGTH)),
};

/**
 * A quick test passing only fields the schemas above accept as they are, so the usual
 * create skips yup (about 3 µs); anything else is judged by yup. A property test holds the
 * two together.
 */
export function isPlainNewPlant(id: unknown, name: unknown, tag: unknown): boolean {
  return (
    plantIdParameter.accepts(id) &&
    typeof name === 'string' &&
    isBoundedText(name, MAX_NAME_LENGTH) &&
    isWellFormed(name) &&
    (tag == null || (typeof tag === 'string' && isBoundedText(tag, MAX_TAG_LENGTH) && isWellFormed(tag)))
  );
}

/**
 * Turns untrusted input (a parsed JSON body, or an embedded caller's object) into a Plant,
 * or throws PlantStoreError 40002 (not an object) / 40001 (fails the field rules).
 * Only id, name and tag are read: anything else is never stored nor echoed.
 */
export function parseNewPlant(input: unknown): Plant {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new PlantStoreError(ErrorCode.MalformedBody, 'the plant must be a JSON object');
  }
  // Only the three known fields reach the schema: other keys (`__proto__` included) are
  // never looked at, stored or echoed. Each is read once, so what is checked is what is kept.
  const { id, name, tag } = input as { id?: unknown; name?: unknown; tag?: unknown };
  if (!isPlainNewPlant(id, name, tag)) {
    const rules = new BrokenRules();
    rules.check(fieldSchemas.id, id);
    rules.check(fieldSchemas.name, name);
    rules.check(fieldSchemas.tag, tag);
    rules.throwIfAny(ErrorCode.InvalidPlant);
  }
  return tag == null ? { id: id as number, name: name as string } : { id: id as number, name: name as string, tag: tag as string };
}
