import { expect } from 'chai';
import fc from 'fast-check';
import { afterParameter, limitParameter, plantIdParameter } from '../../core/parameter-validation.js';
import { MAX_PLANT_ID } from '../../core/plant.js';
import { fieldSchemas, isPlainNewPlant } from '../../core/plant-validation.js';

/** yup's verdict: the value it returns, or 'refused'. */
function judged(schema: { validateSync(value: unknown, options: object): unknown }, value: unknown): unknown {
  try {
    return schema.validateSync(value, { abortEarly: false });
  } catch {
    return 'refused';
  }
}

// Values near every edge of the rules, and anything else JSON or a JavaScript caller can give.
const edgeNumber = fc.oneof(
  fc.constantFrom(0, 1, -1, 0.5, 1.5, 999, 1000, 1001, MAX_PLANT_ID, MAX_PLANT_ID + 1, MAX_PLANT_ID + 2, -0, Number.NaN, Infinity, -Infinity, 2 ** 53, 1e21),
  fc.integer(),
  fc.double(),
);
const edgeText = fc.oneof(
  fc.constantFrom('', ' ', '\t\n', 'a', ' a ', '\u00a0', '\u3000', '🌱', '🌱'.repeat(100), 'x'.repeat(100), 'x'.repeat(101), 'x'.repeat(50), 'x'.repeat(51)),
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
);
const anyValue = fc.oneof(edgeNumber, edgeText, fc.constantFrom(null, undefined, true, false, [], {}, [1], '1', new Date(0)), fc.anything());

// The quick checks let the usual request skip yup; yup stays the rule book. Whatever a quick
// check passes, yup must accept unchanged — so skipping it changes no answer.
describe('quick checks agree with the yup rules', () => {
  it('an integer parameter passed quickly is one yup accepts as it is (id, limit, after)', () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        for (const { schema, accepts } of [plantIdParameter, limitParameter, afterParameter]) {
          if (accepts(value)) expect(judged(schema, value)).to.equal(value);
          // And the other way for numbers: the quick check does not send valid ids to yup needlessly.
          else if (typeof value === 'number') expect(judged(schema, value)).to.equal('refused');
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('a new plant passed quickly has fields yup accepts as they are', () => {
    const field = fc.oneof(anyValue, edgeText, edgeNumber);
    fc.assert(
      fc.property(field, field, fc.oneof(field, fc.constant(undefined), fc.constant(null)), (id, name, tag) => {
        const accepted = [judged(fieldSchemas.id, id) === id, judged(fieldSchemas.name, name) === name, judged(fieldSchemas.tag, tag) === tag];
        if (isPlainNewPlant(id, name, tag)) expect(accepted).to.deep.equal([true, true, true]);
        else if (typeof id === 'number' && typeof name === 'string' && (tag == null || typeof tag === 'string')) expect(accepted).to.include(false);
      }),
      { numRuns: 5000 },
    );
  });
});
