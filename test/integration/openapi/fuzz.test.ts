// Schema-driven fuzzing: requests generated from the served OpenAPI document (fast-check
// arbitraries derived from its JSON Schemas), valid and invalid, sent to every operation. Checks
// (issue 25, api-contract §13): no 5xx; every answer's status is documented, its content type
// is the documented one and its body matches the documented schema; a body the document calls
// invalid is refused with 400. The seed is printed; FUZZ_SEED=<n> replays a run.
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { startTestApp, request } from '../../helpers/app.js';
import { makeFamily } from '../../helpers/factories.js';
import type { RunningServer } from '../../../server/server.js';
import { SCHEMA_VERSION } from '@family-shopping/client/protocol';

type Json = Record<string, any>;

const VALID_PER_OP = 4;
const INVALID_PER_OP = 4;

/** JSON Schema (the subset the document uses) → fast-check arbitrary of valid values. */
function arbitraryOf(schema: Json, doc: Json, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 8) return fc.constant(null);
  if (schema.$ref) return arbitraryOf(doc.components.schemas[schema.$ref.split('/').pop()], doc, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b: Json) => arbitraryOf(b, doc, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 2 ** 31 - 1) });
    case 'number':
      return fc
        .integer({ min: Math.ceil((schema.minimum ?? -1000) * 1000), max: Math.floor((schema.maximum ?? 1000) * 1000) })
        .map((n) => n / 1000);
    case 'string': {
      if (schema.format === 'uuid' || schema.pattern?.includes('[0-9a-fA-F]{8}')) return fc.uuid();
      if (schema.format === 'email') return fc.stringMatching(/^[a-z]{1,12}@[a-z]{1,12}\.test$/);
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 30, min + 30);
      const text = fc.string({
        unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 '),
        minLength: min,
        maxLength: max,
      });
      if (!schema.pattern) return text;
      const re = new RegExp(schema.pattern, 'u');
      return text.map((s) => (re.test(s) ? s : `a${s}`.slice(0, Math.max(max, 1)))).filter((s) => re.test(s));
    }
    case 'array': {
      const items = arbitraryOf(schema.items ?? {}, doc, depth + 1);
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) })
        : fc.array(items, constraints);
    }
    case 'object':
    case undefined: {
      if (!schema.properties) return type ? fc.dictionary(fc.string(), fc.string(), { maxKeys: 0 }) : fc.constant({});
      const required = new Set<string>(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries<Json>(schema.properties))
        model[name] = arbitraryOf(prop, doc, depth + 1);
      return fc.record(model, { requiredKeys: [...required] });
    }
    default:
      return fc.constant(null);
  }
}

/** Ways to make a valid body invalid: wrong root type, a required field left out, a field of the
 *  wrong type, a string one past its maximum length. Kept only if the document refuses it. */
function invalidOf(body: unknown, schema: Json, doc: Json): unknown[] {
  const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
  const out: unknown[] = ['not an object', 42, [body]];
  if (!body || typeof body !== 'object' || Array.isArray(body) || !resolved?.properties) return out;
  const b = body as Json;
  for (const name of resolved.required ?? []) {
    const { [name]: _drop, ...rest } = b;
    out.push(rest);
  }
  for (const [name, prop] of Object.entries<Json>(resolved.properties)) {
    const p = prop.anyOf?.find((x: Json) => x.type !== 'null') ?? prop;
    out.push({ ...b, [name]: p.type === 'string' ? 12345 : 'wrong type' });
    if (p.type === 'string' && p.maxLength && !p.format) out.push({ ...b, [name]: 'x'.repeat(p.maxLength + 1) });
  }
  return out;
}

describe('OpenAPI document: schema-driven fuzzing of every operation', function () {
  this.timeout(180_000);
  let app: RunningServer;

  before(async () => {
    // Its own instance, behind a trusted proxy: the fuzz's address fills no rate-limit bucket of
    // the other tests.
    app = await startTestApp({ envOverrides: { TRUST_PROXY: 'true' } });
  });
  after(async () => {
    await app?.close();
  });

  it('answers generated valid and invalid requests as documented, never with a 5xx', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
    console.log(`      fuzz seed ${seed} (replay: FUZZ_SEED=${seed} npx mocha test/integration/openapi/fuzz.test.ts)`);
    const doc = (await request(app, 'GET', '/api/openapi.json')).body as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const compiled = new Map<string, ValidateFunction>();
    const validatorOf = (schema: Json) => {
      const key = JSON.stringify(schema);
      let v = compiled.get(key);
      if (!v) compiled.set(key, (v = ajv.compile({ ...schema, components: doc.components })));
      return v;
    };
    const sample = <T>(arb: fc.Arbitrary<T>, n: number, offset: number) =>
      fc.sample(arb, { numRuns: n, seed: seed + offset });

    let operations = 0;
    let requests = 0;
    let accepted = 0;
    const failures: string[] = [];
    let offset = 0;
    let address = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        operations++;
        offset++;
        const family = await makeFamily(app);
        const params = (op.parameters ?? []) as Json[];
        const bodySchema = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
        const bodyValid = bodySchema ? validatorOf(bodySchema) : undefined;
        const urlOf = (values: Record<string, unknown>) => {
          let url = path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name])));
          const query = params
            .filter((p) => p.in === 'query' && values[p.name] !== undefined)
            .map((p) => `${p.name}=${encodeURIComponent(String(values[p.name]))}`);
          if (query.length) url += `?${query.join('&')}`;
          return url;
        };
        // The replication `schema` is this server's version: any other answers 426/400 before the rest.
        const paramModel: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
          params.map((p) => [
            p.name as string,
            p.name === 'schema' && p.in === 'query' ? fc.constant(SCHEMA_VERSION) : arbitraryOf(p.schema ?? {}, doc),
          ]),
        );
        const paramArb = fc.record(paramModel, {
          requiredKeys: params.filter((p) => p.required).map((p) => p.name as string) as never[],
        }) as fc.Arbitrary<Json>;
        let bodies: unknown[] = [undefined];
        if (bodySchema) {
          try {
            bodies = sample(arbitraryOf(bodySchema, doc), VALID_PER_OP * 3, offset).filter((b) => bodyValid!(b));
          } catch {
            bodies = [];
          }
        }
        const valueSets = sample(paramArb, VALID_PER_OP, offset);

        const send = async (values: Json, body: unknown, invalid: boolean) => {
          requests++;
          const url = urlOf(values);
          const label = `${method.toUpperCase()} ${url}${invalid ? ' (invalid body)' : ''}`;
          const res = await request(app, method.toUpperCase(), url, {
            token: family.admin.token,
            body,
            headers: { 'x-forwarded-for': `198.51.100.${(address++ % 250) + 1}` },
          });
          if (res.status < 300) accepted++;
          const documented = op.responses[String(res.status)] as Json | undefined;
          if (res.status >= 500) return failures.push(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
          if (!documented) return failures.push(`${label}: undocumented status ${res.status}`);
          if (invalid && res.status !== 400 && res.status !== 429)
            return failures.push(`${label}: invalid body answered ${res.status}`);
          const types = Object.keys(documented.content ?? {});
          if (!types.length) return;
          const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
          if (!types.includes(type)) return failures.push(`${label}: ${res.status} as ${type}, documented ${types}`);
          const schema = documented.content[type].schema as Json;
          if (type.endsWith('json')) {
            const v = validatorOf(schema);
            if (!v(res.body)) failures.push(`${label}: ${res.status} body: ${ajv.errorsText(v.errors)}`);
          }
        };

        for (let i = 0; i < VALID_PER_OP; i++) {
          const body = bodies.length ? bodies[i % bodies.length] : undefined;
          if (bodySchema && !bodies.length) break;
          await send(valueSets[i % valueSets.length] ?? {}, body, false);
        }
        if (bodySchema && bodyValid) {
          const base = bodies[0] ?? {};
          const invalid = invalidOf(base, bodySchema, doc).filter((b) => !bodyValid(b));
          for (const body of sample(fc.constantFrom(...invalid), INVALID_PER_OP, offset))
            await send(valueSets[0] ?? {}, body, true);
        }
      }
    }
    console.log(
      `      fuzz: ${operations} operations, ${requests} requests (${accepted} answered 2xx), ${failures.length} failures`,
    );
    expect(failures, failures.slice(0, 20).join('\n')).to.deep.equal([]);
  });
});
