import { BSON, MongoBulkWriteError, MongoInvalidArgumentError, MongoServerError, type BulkWriteResult, type Document, type WriteError } from 'mongodb';

export interface CollectionStandInOptions {
  /** Awaited before each operation applies, with its name ('updateOne', 'find', …). */
  readonly gate?: (operation: string) => Promise<void>;
  /** Also awaits the gate with '<name>:reply' once applied, so a reply can arrive late. Default false. */
  readonly gateReplies?: boolean;
}

/** What shapes an answer; `signal`, `maxTimeMS`, `batchSize` and `hint` change nothing here. A limit of 0 is none. */
export interface FindOptions {
  readonly sort?: Readonly<Record<string, 1 | -1>>;
  readonly limit?: number;
  readonly projection?: Readonly<Record<string, 0 | 1 | boolean>>;
}

// Fields in the driver's order.
export type UpdateResult<Id> = { acknowledged: true; modifiedCount: number; upsertedId: Id | null; upsertedCount: number; matchedCount: number };
export type DeleteResult = { acknowledged: true; deletedCount: number };

// Where a path reaches nothing; queries take it as null (`{ a: null }` matches a missing `a`).
const MISSING = Symbol('missing');
// An empty array's sort key: below null and missing, in both directions.
const EMPTY_ARRAY = Symbol('empty array');
const UPDATE_OPERATORS = new Set(['$set', '$unset', '$inc', '$push', '$min', '$max', '$setOnInsert']);

/**
 * An in-memory stand-in for the driver's Collection, for deterministic simulations: the
 * subset the mongo adapters use, answering as a standalone MongoDB server does (checked
 * against a real server by collection-stand-in.test.ts). Each operation waits at the gate,
 * then applies whole in one synchronous step, as MongoDB applies a single-document write
 * atomically, so a simulation decides the interleaving by when it opens the gate.
 * Arguments are copied when called, as the driver serialises them then: a caller changing
 * its objects while the operation waits at the gate changes nothing.
 */
export class CollectionStandIn<T extends { _id: unknown }> {
  // In natural order, which on MongoDB is insertion order: unsorted reads and the
  // single-document writes (updateOne, deleteOne) take the first match in it.
  private rows: Document[] = [];
  private readonly gate: (operation: string) => Promise<void>;
  private readonly gateReplies: boolean;

  constructor(options: CollectionStandInOptions = {}) {
    this.gate = options.gate ?? (async () => {});
    this.gateReplies = options.gateReplies ?? false;
  }

  insertOne(document: T): Promise<{ acknowledged: true; insertedId: T['_id'] }> {
    const row = wireCopy(document as Document);
    return this.run('insertOne', () => ({ acknowledged: true, insertedId: this.insert(row) }));
  }

  insertMany(documents: readonly T[], options: { ordered?: boolean } = {}): Promise<{ acknowledged: true; insertedCount: number; insertedIds: Record<number, T['_id']> }> {
    if (documents.length === 0) return Promise.reject(new MongoInvalidArgumentError('Invalid BulkOperation, Batch cannot be empty'));
    const rows = documents.map((document) => wireCopy(document as Document));
    return this.run('insertMany', () => {
      const insertedIds: Record<number, T['_id']> = {};
      const writeErrors: { index: number; code: number; errmsg: string }[] = [];
      for (const [index, row] of rows.entries()) {
        // Ordered (the driver's default) stops at the first refusal; unordered tries every document.
        if (writeErrors.length > 0 && options.ordered !== false) break;
        try {
          insertedIds[index] = this.insert(row);
        } catch (error) {
          writeErrors.push({ index, code: 11000, errmsg: (error as Error).message });
        }
      }
      const result = { acknowledged: true as const, insertedCount: Object.keys(insertedIds).length, insertedIds };
      if (writeErrors.length > 0) throw bulkWriteError(writeErrors, result);
      return result;
    });
  }

  find(filter: Document = {}, options: FindOptions = {}): { toArray(): Promise<T[]> } {
    const [query, { sort, limit, projection }] = wireCopy([filter, { sort: options.sort, limit: options.limit, projection: options.projection }] as const);
    return { toArray: () => this.run('find', () => this.select(query, { sort, limit, projection })) };
  }

  findOne(filter: Document = {}, options: FindOptions = {}): Promise<T | null> {
    const [query, { sort, projection }] = wireCopy([filter, { sort: options.sort, projection: options.projection }] as const);
    return this.run('findOne', () => this.select(query, { sort, limit: 1, projection })[0] ?? null);
  }

  countDocuments(filter: Document = {}): Promise<number> {
    const query = wireCopy(filter);
    return this.run('countDocuments', () => this.rows.filter((row) => matches(row, query)).length);
  }

  updateOne(filter: Document, update: Document, options: { upsert?: boolean } = {}): Promise<UpdateResult<T['_id']>> {
    return this.update('updateOne', filter, update, options.upsert === true, false);
  }

  updateMany(filter: Document, update: Document, options: { upsert?: boolean } = {}): Promise<UpdateResult<T['_id']>> {
    return this.update('updateMany', filter, update, options.upsert === true, true);
  }

  deleteOne(filter: Document = {}): Promise<DeleteResult> {
    return this.delete('deleteOne', filter, false);
  }

  deleteMany(filter: Document = {}): Promise<DeleteResult> {
    return this.delete('deleteMany', filter, true);
  }

  /** Indexes change no answer here (the `_id` one is always enforced): only the name comes back. */
  createIndex(keys: Readonly<Record<string, 1 | -1>>, options: { name?: string } = {}): Promise<string> {
    return this.run('createIndex', () => options.name ?? Object.entries(keys).flat().join('_'));
  }

  drop(): Promise<boolean> {
    return this.run('drop', () => {
      this.rows = [];
      return true;
    });
  }

  /** Every document now, by `_id`, copied: for a simulation's invariant checks, outside any gate. */
  documents(): T[] {
    return [...this.rows].sort((a, b) => compare(a._id, b._id)).map((row) => wireCopy(row) as T);
  }

  /** Waits at the gate, applies in one step, then replies (after the reply gate, if asked) with the value or the error. */
  private async run<R>(operation: string, apply: () => R): Promise<R> {
    await this.gate(operation);
    let outcome: { value: R } | { error: unknown };
    try {
      outcome = { value: apply() };
    } catch (error) {
      outcome = { error };
    }
    if (this.gateReplies) await this.gate(`${operation}:reply`);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  /** Adds the document unless the unique `_id` index refuses it; its `_id`, copied. */
  private insert(row: Document): T['_id'] {
    if (this.rows.some((other) => compare(other._id, row._id) === 0)) throw duplicateKey(row._id);
    this.rows.push(row);
    return wireCopy(row._id);
  }

  private select(query: Document, { sort, limit, projection }: FindOptions): T[] {
    let found = this.rows.filter((row) => matches(row, query));
    if (sort !== undefined) found = sorted(found, sort);
    // MongoDB reads a negative limit as its absolute value (in one batch).
    if (limit) found = found.slice(0, Math.abs(limit));
    return found.map((row) => wireCopy(projection === undefined ? row : project(row, projection)) as T);
  }

  private update(operation: string, filter: Document, update: Document, upsert: boolean, many: boolean): Promise<UpdateResult<T['_id']>> {
    const [query, changes] = wireCopy([filter, update]);
    // The driver refuses a replacement (or an empty update) itself, before anything is sent.
    if (!Object.keys(changes).some((key) => key.startsWith('$'))) return Promise.reject(new MongoInvalidArgumentError('Update document requires atomic operators'));
    return this.run(operation, () => {
      checkUpdate(changes);
      const targets = this.rows.filter((row) => matches(row, query)).slice(0, many ? undefined : 1);
      let modifiedCount = 0;
      for (const row of targets) {
        // Changed on a copy: an update that fails leaves the document as it was.
        const next = applyUpdate(wireCopy(row), changes, false);
        if (compare(next._id, row._id) !== 0) throw serverError(66, "Performing an update on the path '_id' would modify the immutable field '_id'");
        if (compare(next, row) === 0) continue;
        this.rows[this.rows.indexOf(row)] = next;
        modifiedCount++;
      }
      if (targets.length > 0 || !upsert) return { acknowledged: true, modifiedCount, upsertedId: null, upsertedCount: 0, matchedCount: targets.length };
      const upsertedId = this.insert(applyUpdate(upsertSeed(query), changes, true));
      return { acknowledged: true, modifiedCount: 0, upsertedId, upsertedCount: 1, matchedCount: 0 };
    });
  }

  private delete(operation: string, filter: Document, many: boolean): Promise<DeleteResult> {
    const query = wireCopy(filter);
    return this.run(operation, () => {
      const doomed = this.rows.filter((row) => matches(row, query)).slice(0, many ? undefined : 1);
      this.rows = this.rows.filter((row) => !doomed.includes(row));
      return { acknowledged: true, deletedCount: doomed.length };
    });
  }
}

/** A round trip through BSON, as over the wire: nothing is shared, and an undefined field is dropped (in an array, null). */
function wireCopy<V>(value: V): V {
  return BSON.deserialize(BSON.serialize({ value })).value as V;
}

function serverError(code: number, message: string): MongoServerError {
  return new MongoServerError({ message, code });
}

/** What MongoDB answers when the unique `_id` index refuses a document: isDuplicateKey holds. */
function duplicateKey(id: unknown): MongoServerError {
  return serverError(11000, `E11000 duplicate key error collection: stand-in index: _id_ dup key: { _id: ${JSON.stringify(id)} }`);
}

/** The driver's error for an insertMany with refused documents: `writeErrors` by index, what went in in `result`. */
function bulkWriteError(writeErrors: { index: number; code: number; errmsg: string }[], result: { insertedCount: number; insertedIds: Document }): MongoBulkWriteError {
  const bulkResult = { ...result, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0, upsertedIds: {} } as unknown as BulkWriteResult;
  return new MongoBulkWriteError({ message: writeErrors[0]!.errmsg, code: 11000, writeErrors: writeErrors as unknown as WriteError[] }, bulkResult);
}

function isPlainObject(value: unknown): value is Document {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** `{ $gt: 1 }` is a condition, `{ a: 1 }` a value: MongoDB decides by the first key. */
function isOperatorObject(value: unknown): value is Document {
  return isPlainObject(value) && (Object.keys(value)[0]?.startsWith('$') ?? false);
}

// ---- Queries ----

function matches(document: Document, filter: Document): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Document[]).every((clause) => matches(document, clause));
    if (key === '$or') return (condition as Document[]).some((clause) => matches(document, clause));
    if (key === '$nor') return !(condition as Document[]).some((clause) => matches(document, clause));
    if (key.startsWith('$')) throw new Error(`CollectionStandIn: query operator ${key} is not supported`);
    return holds(valuesAt(document, key.split('.')), condition);
  });
}

/**
 * The values a dotted path reaches, as MongoDB walks it: through an array it looks into
 * every subdocument element (and at the element a numeric part names). MISSING where a
 * document lacks the field; an array with no such element gives nothing, so `{ 'a.b': null }`
 * matches `a: [{}]` but not `a: []` or `a: [5]` (as MongoDB's dotted_path_in_null test has it).
 */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [value];
  const [part, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) {
    const found = value.filter(isPlainObject).flatMap((element) => valuesAt(element, path));
    if (/^\d+$/.test(part) && Number(part) < value.length) found.push(...valuesAt(value[Number(part)], rest));
    return found;
  }
  return isPlainObject(value) && Object.hasOwn(value, part) ? valuesAt(value[part], rest) : [MISSING];
}

/** A value matches a scalar condition if it, or (being an array) one of its elements, does. */
function reaches(value: unknown, test: (candidate: unknown) => boolean): boolean {
  return test(value) || (Array.isArray(value) && value.some(test));
}

function holds(values: unknown[], condition: unknown): boolean {
  const any = (test: (candidate: unknown) => boolean) => values.some((value) => reaches(value, test));
  const equals = (operand: unknown) => (candidate: unknown) => compare(candidate, operand) === 0;
  // Type bracketing: `$lt: 5` only looks at numbers, `$lt: 'm'` only at strings.
  const ordered = (operand: unknown, accept: (order: number) => boolean) => (candidate: unknown) =>
    rank(candidate) === rank(operand) && accept(compare(candidate, operand));
  if (!isOperatorObject(condition)) return any(equals(condition));
  return Object.entries(condition).every(([operator, operand]) => {
    switch (operator) {
      case '$eq': return any(equals(operand));
      case '$ne': return !any(equals(operand));
      case '$in': return (operand as unknown[]).some((option) => any(equals(option)));
      case '$nin': return !(operand as unknown[]).some((option) => any(equals(option)));
      case '$lt': return any(ordered(operand, (order) => order < 0));
      case '$lte': return any(ordered(operand, (order) => order <= 0));
      case '$gt': return any(ordered(operand, (order) => order > 0));
      case '$gte': return any(ordered(operand, (order) => order >= 0));
      case '$exists': return values.some((value) => value !== MISSING) === Boolean(operand);
      case '$type': return any((candidate) => candidate !== MISSING && [operand].flat().some((alias) => isOfType(candidate, alias)));
      case '$elemMatch': return values.some((value) => Array.isArray(value) && value.some((element) => elementMatches(element, operand as Document)));
      default: throw new Error(`CollectionStandIn: query operator ${operator} is not supported`);
    }
  });
}

/**
 * `$type` by its aliases; the values here are as the driver hands them back (every number a
 * JS number), so the numeric ones but 'number' cannot be told apart and are refused.
 */
function isOfType(value: unknown, alias: unknown): boolean {
  switch (alias) {
    case 'number': return typeof value === 'number';
    case 'string': return typeof value === 'string';
    case 'object': return isPlainObject(value);
    case 'array': return Array.isArray(value);
    case 'bool': return typeof value === 'boolean';
    case 'null': return value === null;
    case 'date': return value instanceof Date;
    default: throw new Error(`CollectionStandIn: $type ${JSON.stringify(alias)} is not supported`);
  }
}

/** `$elemMatch: { failed: true }` queries subdocument elements; `$elemMatch: { $gt: 1 }` tests the elements themselves. */
function elementMatches(element: unknown, query: Document): boolean {
  const onElement = Object.keys(query).every((key) => key.startsWith('$') && !['$and', '$or', '$nor'].includes(key));
  return onElement ? holds([element], query) : isPlainObject(element) && matches(element, query);
}

/** BSON's order of types: missing and null, numbers, strings, objects, arrays, booleans, dates. */
function rank(value: unknown): number {
  if (value === EMPTY_ARRAY) return 0;
  if (value === MISSING || value === null || value === undefined) return 1;
  if (typeof value === 'number') return 2;
  if (typeof value === 'string') return 3;
  if (isPlainObject(value)) return 4;
  if (Array.isArray(value)) return 5;
  if (typeof value === 'boolean') return 8;
  if (value instanceof Date) return 9;
  throw new Error(`CollectionStandIn: values like ${String(value)} are not supported`);
}

/** MongoDB's comparison of values (and so its equality: deep, and order-sensitive for subdocuments). */
function compare(a: unknown, b: unknown): number {
  const byType = rank(a) - rank(b);
  if (byType !== 0 || rank(a) <= 1) return Math.sign(byType);
  if (typeof a === 'number' && typeof b === 'number') {
    // NaN equals itself and comes before every other number.
    if (Number.isNaN(a) || Number.isNaN(b)) return Number(Number.isNaN(b)) - Number(Number.isNaN(a));
    return a < b ? -1 : a > b ? 1 : 0;
  }
  // Strings by their UTF-8 bytes (MongoDB's simple collation), not by UTF-16 units.
  if (typeof a === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b as string));
  if (Array.isArray(a)) return compareSequences(a, b as unknown[]);
  // Field by field: the value's type, then the name, then the value.
  if (isPlainObject(a)) return compareSequences(fieldSequence(a), fieldSequence(b as Document));
  return Math.sign(Number(a) - Number(b));
}

function fieldSequence(document: Document): unknown[] {
  return Object.entries(document).flatMap(([name, value]) => [rank(value), name, value]);
}

function compareSequences(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compare(a[i], b[i]);
    if (order !== 0) return order;
  }
  return Math.sign(a.length - b.length);
}

/** Stable, so ties keep natural order. An array sorts by its least element ascending, its greatest descending. */
function sorted(rows: Document[], sort: Readonly<Record<string, 1 | -1>>): Document[] {
  const keys = Object.entries(sort);
  const keyOf = (row: Document, path: string, direction: number) => {
    const values = valuesAt(row, path.split('.')).flatMap((value) => (Array.isArray(value) ? (value.length > 0 ? value : [EMPTY_ARRAY]) : [value]));
    return values.reduce((best, value) => (compare(value, best) * direction < 0 ? value : best), values[0] ?? MISSING);
  };
  const keyed = rows.map((row) => ({ row, key: keys.map(([path, direction]) => keyOf(row, path, direction)) }));
  keyed.sort((a, b) => {
    for (const [i, [, direction]] of keys.entries()) {
      const order = compare(a.key[i], b.key[i]) * direction;
      if (order !== 0) return order;
    }
    return 0;
  });
  return keyed.map(({ row }) => row);
}

/** Inclusion (`{ a: 1 }`, `_id` kept unless `_id: 0`) or exclusion (`{ a: 0 }`), top-level fields. */
function project(row: Document, projection: Readonly<Record<string, unknown>>): Document {
  const fields = Object.entries(projection);
  if (fields.some(([path, on]) => path.includes('.') || !['number', 'boolean'].includes(typeof on))) {
    throw new Error('CollectionStandIn: only 0/1 projections of top-level fields are supported');
  }
  const excluding = fields.every(([, on]) => !on);
  if (!excluding && fields.some(([path, on]) => path !== '_id' && !on)) throw serverError(31254, 'Cannot do exclusion in an inclusion projection');
  const kept = (field: string) => (excluding || field === '_id' ? projection[field] ?? true : projection[field]);
  return Object.fromEntries(Object.entries(row).filter(([field]) => Boolean(kept(field))));
}

// ---- Updates ----

/** Refuses what MongoDB refuses before touching a document: unknown operators, two of them on one path. */
function checkUpdate(update: Document): void {
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(update)) {
    if (!UPDATE_OPERATORS.has(operator)) throw new Error(`CollectionStandIn: update operator ${operator} is not supported`);
    paths.push(...Object.keys(fields as Document));
  }
  for (const [i, path] of paths.entries()) {
    for (const other of paths.slice(i + 1)) {
      if (path === other || other.startsWith(`${path}.`) || path.startsWith(`${other}.`)) throw serverError(40, `Updating the path '${path}' would create a conflict at '${other}'`);
    }
  }
}

/** The document an upsert inserts before its update applies: the filter's equality fields, `_id` first. */
function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  const take = (clauses: Document) => {
    for (const [key, condition] of Object.entries(clauses)) {
      if (key === '$and') (condition as Document[]).forEach(take);
      else if (key.startsWith('$')) continue;
      else if (!isOperatorObject(condition)) setPath(seed, key, condition);
      else if (Object.hasOwn(condition, '$eq')) setPath(seed, key, condition['$eq']);
    }
  };
  take(filter);
  // The driver would make an ObjectId here; the adapters always upsert by `_id`.
  if (!Object.hasOwn(seed, '_id')) throw new Error('CollectionStandIn: an upsert needs an _id equality in its filter');
  const { _id, ...rest } = seed;
  return { _id, ...rest };
}

/** Applies the operators field by field in the order of the paths, as MongoDB does (so new fields come in that order). */
function applyUpdate(document: Document, update: Document, inserting: boolean): Document {
  const changes = Object.entries(update)
    .filter(([operator]) => operator !== '$setOnInsert' || inserting)
    .flatMap(([operator, fields]) => Object.entries(fields as Document).map(([path, operand]) => ({ operator, path, operand })))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const { operator, path, operand } of changes) applyChange(document, operator, path, operand);
  return document;
}

function applyChange(document: Document, operator: string, path: string, operand: unknown): void {
  const current = getPath(document, path);
  switch (operator) {
    case '$set':
    case '$setOnInsert':
      return setPath(document, path, operand);
    case '$unset':
      return unsetPath(document, path);
    case '$inc':
      // A missing field counts from 0.
      if (current !== MISSING && typeof current !== 'number') throw serverError(14, `Cannot apply $inc to a value of non-numeric type (field '${path}')`);
      return setPath(document, path, (current === MISSING ? 0 : (current as number)) + (operand as number));
    case '$push': {
      if (current !== MISSING && !Array.isArray(current)) throw serverError(2, `The field '${path}' must be an array`);
      const added = isPlainObject(operand) && Object.hasOwn(operand, '$each') ? (operand['$each'] as unknown[]) : [operand];
      return setPath(document, path, [...((current === MISSING ? [] : current) as unknown[]), ...added]);
    }
    case '$min':
    case '$max':
      // By BSON order, across types too; a missing field takes the operand.
      if (current === MISSING || compare(operand, current) * (operator === '$min' ? 1 : -1) < 0) setPath(document, path, operand);
  }
}

function getPath(document: Document, path: string): unknown {
  let value: unknown = document;
  for (const part of path.split('.')) {
    if (!isPlainObject(value) || !Object.hasOwn(value, part)) return MISSING;
    value = value[part];
  }
  return value;
}

/** Sets a dotted path, creating the subdocuments on the way; an existing field keeps its place. */
function setPath(document: Document, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop()!;
  let parent = document;
  for (const [i, part] of parts.entries()) {
    if (!Object.hasOwn(parent, part)) parent[part] = {};
    const child: unknown = parent[part];
    const next = parts[i + 1] ?? last;
    if (Array.isArray(child) && /^\d+$/.test(next)) throw new Error(`CollectionStandIn: updating '${path}' by array index is not supported`);
    if (!isPlainObject(child)) throw serverError(28, `Cannot create field '${next}' in element {${part}: ${JSON.stringify(child)}}`);
    parent = child;
  }
  parent[last] = value;
}

function unsetPath(document: Document, path: string): void {
  const parts = path.split('.');
  const last = parts.pop()!;
  const parent = parts.length === 0 ? document : getPath(document, parts.join('.'));
  if (isPlainObject(parent)) delete parent[last];
}
