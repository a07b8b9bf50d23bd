// Reads a route's own zod declarations (as JSON Schema, the form the OpenAPI document uses) to
// generate test cases: a value that breaks each declared constraint of each field, and the body
// fields that hold record ids. Used by the generated bad-input and isolation tests.
import { z } from 'zod';

type Json = Record<string, any>;

export function jsonSchema(schema: z.core.$ZodType): Json {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
}

/** A value that breaks one declared constraint, and the field path the 400 must name. */
export interface BadCase {
  /** Field path below the request part, e.g. `name`, `ingredients.0.quantity` ('' = the whole part). */
  path: string;
  /** The value to put there (`MISSING` deletes the field). */
  value: unknown;
  why: string;
}

export const MISSING = Symbol('missing');

function resolve(s: Json, root: Json): Json {
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/$defs/')) return resolve(root.$defs[s.$ref.slice(8)], root);
  return s;
}

function branches(s: Json, root: Json): Json[] {
  const r = resolve(s, root);
  return (r.anyOf ?? r.oneOf ?? [r]).map((b: Json) => resolve(b, root));
}

const typesOf = (b: Json): string[] => (b.type === undefined ? ['any'] : ([] as string[]).concat(b.type));

const accepts = (types: Set<string>, t: string) =>
  types.has(t) || (t === 'number' && types.has('integer')) || (t === 'integer' && types.has('number'));

const WRONG_TYPES: [string, unknown][] = [
  ['string', 'not-the-right-type'],
  ['integer', 12345],
  ['boolean', true],
  ['object', { unexpected: 1 }],
];

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Values breaking each declared constraint of a field: a JSON type no branch accepts (JSON
 * bodies only), then, for the field's one non-null branch, each of its limits. A field declared
 * without any constraint (`{}`) yields nothing.
 */
function fieldCases(s: Json, root: Json, path: string, base: unknown, json: boolean): BadCase[] {
  const all = branches(s, root);
  const types = new Set(all.flatMap(typesOf));
  if (types.has('any')) return [];
  const out: BadCase[] = [];
  if (json) {
    const wrong = WRONG_TYPES.find(([t]) => !accepts(types, t));
    if (wrong)
      out.push({ path, value: wrong[1], why: `a ${typeof wrong[1]} where ${[...types].join('|')} is declared` });
  }
  const main = all.filter((b) => b.type !== 'null');
  if (main.length !== 1) return out;
  const b = main[0]!;
  const t = typesOf(b)[0];
  if (t === 'string') {
    if (Array.isArray(b.enum))
      out.push({ path, value: 'not-one-of-the-choices', why: `not one of ${b.enum.join(', ')}` });
    if (b.format === 'uuid') out.push({ path, value: 'not-a-uuid', why: 'not a uuid' });
    if (typeof b.minLength === 'number' && b.minLength > 0 && json) out.push({ path, value: '', why: 'empty' });
    if (typeof b.maxLength === 'number')
      out.push({ path, value: 'x'.repeat(b.maxLength + 1), why: `longer than ${b.maxLength}` });
  } else if (t === 'number' || t === 'integer') {
    const n = (v: number) => (json ? v : String(v));
    if (!json) out.push({ path, value: 'not-a-number', why: 'not a number' });
    if (t === 'integer') out.push({ path, value: n((b.minimum ?? 0) + 1.5), why: 'not an integer' });
    if (typeof b.minimum === 'number') out.push({ path, value: n(b.minimum - 1), why: `below ${b.minimum}` });
    if (typeof b.maximum === 'number') out.push({ path, value: n(b.maximum + 1), why: `above ${b.maximum}` });
  } else if (t === 'array' && json && b.items) {
    const items = resolve(b.items, root);
    const first = Array.isArray(base) && base.length ? base[0] : undefined;
    out.push(...fieldCases(items, root, join(path, '0'), first, json));
  } else if (t === 'object' && b.properties) {
    out.push(...objectCases(b, root, path, base, json));
  }
  return out;
}

function objectCases(s: Json, root: Json, path: string, base: unknown, json: boolean): BadCase[] {
  const out: BadCase[] = [];
  const props = (s.properties ?? {}) as Record<string, Json>;
  const obj = (base && typeof base === 'object' && !Array.isArray(base) ? base : {}) as Record<string, unknown>;
  for (const name of (s.required ?? []) as string[])
    out.push({ path: join(path, name), value: MISSING, why: 'missing' });
  for (const [name, prop] of Object.entries(props))
    out.push(...fieldCases(prop, root, join(path, name), obj[name], json));
  return out;
}

/**
 * Cases for a request part. `json` is true for bodies (any JSON type can be sent), false for
 * path and query parameters (always strings). For a body, `base` is a valid body: nested
 * objects and arrays are explored where it has them.
 */
export function badCases(schema: z.core.$ZodType, base: unknown, json: boolean): BadCase[] {
  const root = jsonSchema(schema);
  const top = resolve(root, root);
  const out: BadCase[] = [];
  if (json) {
    const wrong = WRONG_TYPES.find(([t]) => !accepts(new Set(typesOf(top)), t)) ?? ['array', [1]];
    out.push({
      path: '',
      value: top.type === 'object' ? ['an', 'array'] : wrong[1],
      why: 'the wrong JSON type for the whole body',
    });
  }
  if (top.type === 'object') out.push(...objectCases(top, root, '', base, json));
  return out;
}

/** Puts `value` at a dotted path (`ingredients.0.name`) of a copy of `base` (`MISSING` deletes). */
export function withValue(base: unknown, path: string, value: unknown): unknown {
  if (!path) return value;
  const out = structuredClone(base ?? {}) as Record<string, unknown>;
  const keys = path.split('.');
  let cur: Record<string, unknown> = out;
  for (const [i, k] of keys.slice(0, -1).entries()) {
    if (cur[k] == null || typeof cur[k] !== 'object') cur[k] = /^\d+$/.test(keys[i + 1]!) ? [] : {};
    cur = cur[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (value === MISSING) delete cur[last];
  else cur[last] = value;
  return out;
}

/**
 * Dotted paths of the body fields that hold record ids (uuid strings, or arrays of them), array
 * items written as `.0`. A field named `id` is the client-chosen id of the record being created,
 * not a reference.
 */
export function uuidFields(schema: z.core.$ZodType): string[] {
  const root = jsonSchema(schema);
  const out: string[] = [];
  const walk = (s: Json, path: string) => {
    for (const b of branches(s, root)) {
      const t = typesOf(b)[0];
      if (t === 'string' && b.format === 'uuid') {
        if (path.split('.').pop() !== 'id') out.push(path);
      } else if (t === 'array' && b.items) {
        const items = branches(b.items, root);
        if (items.some((i) => i.type === 'string' && i.format === 'uuid')) out.push(path);
        else walk(b.items, join(path, '0'));
      } else if (t === 'object') {
        for (const [name, prop] of Object.entries((b.properties ?? {}) as Record<string, Json>))
          walk(prop, join(path, name));
      }
    }
  };
  walk(root, '');
  return [...new Set(out)];
}
