// compose.yaml against the Compose specification's JSON schema (the copy of compose-spec's
// schema/compose-spec.json that the dclint package ships), and against what docs/operations.md
// ("Container") says it runs. The image itself is built and started by scripts/image-check.sh.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const require = createRequire(import.meta.url);
const SCHEMA_FILE = join(dirname(require.resolve('dclint/package.json')), 'schemas/compose.schema.json');

type Service = {
  image?: string;
  build?: string | { context: string };
  env_file?: string | string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
};
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };

// YAML merge keys (`<<: *app`) resolved, as compose does before it validates.
const compose = parse(read('compose.yaml'), { merge: true }) as Compose;

/** The rows of the docs/operations.md table whose header row is `header` (cells trimmed). */
function docTable(header: string): string[][] {
  const lines = read('docs/operations.md').split('\n');
  const at = lines.indexOf(header);
  expect(at, `docs/operations.md has the table "${header}"`).to.be.greaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return rows;
}
/** Ajv for the schema: it names draft-07's meta-schema by its https address, which Ajv knows by its http one. */
let compiled: ValidateFunction | undefined;
function compileSchema(): ValidateFunction {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as { $schema: string; title: string };
  expect(schema.title).to.equal('Compose Specification');
  const draft07 = require('ajv/dist/refs/json-schema-draft-07.json') as object;
  // strict: false: the schema uses annotations (deprecated) that draft-07 does not define.
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  compiled = ajv.compile(schema);
  return compiled;
}
const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('compose.yaml', () => {
  it('is valid against the Compose specification JSON schema', () => {
    const validate = compileSchema();
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).to.deep.equal([]);
    expect(valid).to.equal(true);
  });

  it('the schema check catches a broken file', () => {
    const validate = compileSchema();
    const broken = structuredClone(compose);
    (broken.services.redis as Record<string, unknown>).restart_policy = 'always';
    (broken.services.postgres as Record<string, unknown>).ports = 5432;
    expect(validate(broken)).to.equal(false);
    const paths = (validate.errors ?? []).map((e) => e.instancePath);
    expect(paths).to.include('/services/redis');
    expect(paths).to.include('/services/postgres/ports');
  });

  it('runs the services docs/operations.md describes, with their images', () => {
    const rows = docTable('| service | image | what it is |');
    const documented = new Map<string, string>();
    for (const [names, image] of rows) {
      for (const name of codeSpans(names!)) documented.set(name, codeSpans(image!)[0]!);
    }
    expect([...documented.keys()].sort()).to.deep.equal(Object.keys(compose.services).sort());
    expect([...documented.keys()].sort()).to.deep.equal(['app1', 'app2', 'postgres', 'proxy', 'redis']);
    for (const [name, image] of documented) {
      const service = compose.services[name]!;
      if (image === 'family-shopping') {
        expect(service.build, `${name} is built from the Dockerfile`).to.equal('.');
        expect(service.image, name).to.match(/^family-shopping(:|$)/);
      } else {
        expect(service.image, name).to.equal(image);
      }
    }
    expect(compose.services.postgres!.image).to.equal('postgres:15');
    expect(compose.services.redis!.image).to.equal('redis:7');
  });

  it('gives both app instances the same .env and wires them to PostgreSQL and Redis', () => {
    const [a, b] = [compose.services.app1!, compose.services.app2!];
    for (const app of [a, b]) {
      expect(app.env_file).to.equal('.env');
      expect(app.environment!.DATABASE_URL).to.match(/^postgres:\/\/.+@postgres:5432\//);
      expect(app.environment!.REDIS_URL).to.equal('redis://redis:6379');
      expect(app.environment!.TRUST_PROXY).to.equal('true');
      expect(app.environment!.JWT_SECRET).to.match(/^\$\{JWT_SECRET:\?/);
      expect(app.depends_on!.postgres!.condition).to.equal('service_healthy');
      expect(app.depends_on!.redis!.condition).to.equal('service_healthy');
    }
    expect(a).to.deep.include({ environment: b.environment, env_file: b.env_file, image: b.image });
    // A new database is migrated by one instance: the second starts once the first is healthy.
    expect(b.depends_on!.app1!.condition).to.equal('service_healthy');
    // The proxy sends requests to both.
    const caddyfile = read('deploy/Caddyfile');
    expect(caddyfile).to.match(/reverse_proxy app1:3000 app2:3000/);
    expect(caddyfile).to.match(/lb_policy round_robin/);
    expect(compose.services.proxy!.volumes).to.include('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('declares the volumes docs/operations.md lists', () => {
    const names = docTable('| volume | holds |').map(([name]) => codeSpans(name!)[0]!);
    expect(names.sort()).to.deep.equal(Object.keys(compose.volumes ?? {}).sort());
    expect(compose.services.postgres!.volumes).to.include('postgres-data:/var/lib/postgresql/data');
  });

  it('takes every variable it uses from .env, and .env.example lists them all', () => {
    const text = read('compose.yaml');
    const used = new Set([...text.matchAll(/(?<!\$)\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));
    expect([...used]).to.include.members(['JWT_SECRET', 'POSTGRES_PASSWORD']);
    const example = new Map(
      read('.env.example')
        .split('\n')
        .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
    );
    for (const name of used) expect(example.has(name), `.env.example lists ${name}`).to.equal(true);
    // The secrets are the family's to choose: none ships in the example.
    expect(example.get('JWT_SECRET')).to.equal('');
    expect(example.get('POSTGRES_PASSWORD')).to.equal('');
    // .env holds secrets: git and the image's build context leave it out.
    expect(read('.gitignore').split('\n')).to.include('.env');
    expect(read('.dockerignore').split('\n')).to.include('.env');
  });
});
