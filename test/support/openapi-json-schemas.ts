import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = unknown;
const documentId = 'urn:plant-store:openapi-components';

/** Points `#/components/schemas/X` at the one registered resource holding every component. */
function rewriteRefs(value: Json): Json {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')
        ? [key, `${documentId}#/$defs/${inner.slice('#/components/schemas/'.length)}`]
        : [key, rewriteRefs(inner)],
    ),
  );
}

/**
 * Validates values against schemas taken from one OpenAPI 3.1 document, with ajv's JSON
 * Schema 2020-12 build (the dialect of OpenAPI 3.1) in strict mode, so a schema keyword
 * ajv does not know is an error rather than silently ignored.
 */
export class DocumentSchemas {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  constructor(document: { components?: { schemas?: Record<string, Json> } }) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: documentId, $defs: rewriteRefs(document.components?.schemas ?? {}) } as object);
  }

  /** Every way `value` breaks `schema` (a schema object of the document), as readable lines. */
  problems(schema: object, value: Json): string[] {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'} ${JSON.stringify(error.params)}`);
  }
}

const byDocument = new WeakMap<object, DocumentSchemas>();

/** One validator per document object, so each schema compiles once per test run. */
export function schemasOf(document: object): DocumentSchemas {
  let schemas = byDocument.get(document);
  if (schemas === undefined) {
    schemas = new DocumentSchemas(document);
    byDocument.set(document, schemas);
  }
  return schemas;
}
