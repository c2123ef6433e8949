// fast-check arbitraries from JSON Schema, as zod v4 writes it
// (`schema.toJSONSchema({ io: 'input' })`): the request schemas of the
// HTTP routes and the MCP tools become generators of inputs of the right
// shape, so a route added to the registry is fuzzed with no change here.
// No maintained package does this for zod v4 with fast-check 4
// (zod-fast-check is zod v3 and fast-check < 4), so this is a small walker
// over the subset zod emits: objects, arrays, strings (length, pattern,
// format, enum), numbers, booleans, const, anyOf/oneOf, $ref.
// Refinements that JSON Schema cannot say (an origin naming at least one
// field, an identifier without control characters) are left to the
// server: a generated input may fail them, and the answer must then be a
// typed 4xx like any other.
import fc from 'fast-check';

/** The part of JSON Schema that zod's toJSONSchema emits. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  description?: string;
}

/**
 * Where a value sits: the property names from the root (array items add
 * nothing), so a hint can match `ownerId` or `origin.sessionId`.
 */
export type SchemaPath = readonly string[];

/**
 * A field-level override: a better generator for a field the schema only
 * calls a string (an id that should name something that exists, a text
 * that should read as a sentence). Undefined: the schema decides.
 */
export type Hint = (path: SchemaPath, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

/**
 * Words for text that the policy gate takes for a sentence worth keeping;
 * a few are negative feedback, on which reflection runs at once (so the
 * background jobs write while the fuzz does).
 */
const WORDS = (
  'dislikes hates failed the kettle garden prefers window seats on long flights and green tea in ' +
  'morning avoids peanuts meeting moved to friday likes quiet hotels near station blue notebook ' +
  'is by porch works from Lisbon café naïve Zürich 東京 über señor plans'
).split(' ');

/** A sentence of 2 to 14 words, cut to `max` characters. */
export function sentence(max = 200): fc.Arbitrary<string> {
  return fc
    .array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 14 })
    .map((w) => w.join(' ').slice(0, Math.max(1, max)));
}

/** Safe integer bounds of a schema, clamped to keep JSON numbers exact. */
function integerRange(s: JsonSchema): { min: number; max: number } {
  let min = s.minimum ?? Number.MIN_SAFE_INTEGER;
  let max = s.maximum ?? Number.MAX_SAFE_INTEGER;
  if (s.exclusiveMinimum !== undefined) min = Math.max(min, Math.floor(s.exclusiveMinimum) + 1);
  if (s.exclusiveMaximum !== undefined) max = Math.min(max, Math.ceil(s.exclusiveMaximum) - 1);
  return {
    min: Math.max(min, Number.MIN_SAFE_INTEGER),
    max: Math.min(max, Number.MAX_SAFE_INTEGER),
  };
}

function integerOf(s: JsonSchema): fc.Arbitrary<number> {
  const { min, max } = integerRange(s);
  // Mostly small values inside the bounds (limits, counts, TTLs), sometimes anywhere.
  const lo = Math.max(min, Math.min(max, min > 0 ? min : -3));
  const hi = Math.min(max, Math.max(lo, 2_000_000));
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: lo, max: hi }) },
    { weight: 1, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

function numberOf(s: JsonSchema): fc.Arbitrary<number> {
  const min = s.minimum ?? s.exclusiveMinimum ?? -1e9;
  const max = s.maximum ?? s.exclusiveMaximum ?? 1e9;
  return fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .filter(
      (n) =>
        (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) &&
        (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum),
    );
}

function stringOf(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === 'date-time')
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  if (s.pattern !== undefined) return fc.stringMatching(new RegExp(s.pattern));
  const minLength = s.minLength ?? 0;
  const maxLength = Math.min(s.maxLength ?? 400, 400);
  const fits = (t: string) => t.length >= minLength && t.length <= maxLength;
  return fc.oneof(
    { weight: 5, arbitrary: sentence(maxLength).filter(fits) },
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 24) })
        .filter(fits),
    },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'binary', minLength, maxLength: Math.min(maxLength, 24) })
        .filter(fits),
    },
  );
}

/** Resolve `#/$defs/Name` against the root schema. */
function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const target = m ? root.$defs?.[m[1]!] : undefined;
  if (!target) throw new Error(`unsupported $ref ${ref}`);
  return target;
}

/**
 * A generator of values of `schema`. Optional properties are present about
 * half the time; arrays are kept short (at most 4 items past their minimum)
 * so that a case stays a request, not a load test.
 */
export function arbitraryOf(
  schema: JsonSchema,
  hint: Hint = () => undefined,
  root: JsonSchema = schema,
  path: SchemaPath = [],
): fc.Arbitrary<unknown> {
  const hinted = hint(path, schema);
  if (hinted) return hinted;
  if (schema.$ref !== undefined)
    return arbitraryOf(resolveRef(root, schema.$ref), hint, root, path);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => arbitraryOf(a, hint, root, path)));
  if (schema.allOf?.length === 1) return arbitraryOf(schema.allOf[0]!, hint, root, path);
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (type.length > 1)
    return fc.oneof(...type.map((t) => arbitraryOf({ ...schema, type: t }, hint, root, path)));
  switch (type[0]) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return integerOf(schema);
    case 'number':
      return numberOf(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const item = schema.items ?? {};
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? minLength + 4, minLength + 4);
      return fc.array(arbitraryOf(item, hint, root, path), { minLength, maxLength });
    }
    case 'object': {
      const props = schema.properties ?? {};
      const names = Object.keys(props);
      if (names.length === 0) {
        // A record (`z.record`) or an open object: a few keys of its values.
        const values =
          typeof schema.additionalProperties === 'object'
            ? arbitraryOf(schema.additionalProperties, hint, root, path)
            : fc.jsonValue({ maxDepth: 2 });
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { maxKeys: 3 });
      }
      const model = Object.fromEntries(
        names.map((n) => [n, arbitraryOf(props[n]!, hint, root, [...path, n])]),
      );
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    default:
      // `{}`: zod's unknown or any.
      return fc.jsonValue({ maxDepth: 2 });
  }
}
