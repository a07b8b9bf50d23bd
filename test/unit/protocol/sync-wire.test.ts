// The replication wire (api-contract §6) at its edges: the checkpoint's bounds and how a
// malformed one is reported, the pull and push URLs a client builds, every collection's bodies,
// the push envelope's id bounds and the references a pushed row may name.
import { expect } from 'chai';
import fc from 'fast-check';
import {
  COLLECTIONS,
  DOC_REFERENCES,
  InvalidCheckpointError,
  PUSH_MAX_ROWS,
  SCHEMA_VERSION,
  checkpointSchema,
  decodeCheckpoint,
  encodeCheckpoint,
  pullQuerySchema,
  pullResponseSchemas,
  pullUrl,
  pushEnvelopeSchema,
  pushQuerySchema,
  pushRequestSchemas,
  pushResponseSchemas,
  pushRowSchemas,
  rejectedRowSchema,
  syncPath,
} from '@family-shopping/client/protocol';
import { arbDoc } from './arbitraries.js';

const ID_64 = 'i'.repeat(64);
const ID_65 = 'i'.repeat(65);

/** The error decodeCheckpoint throws for `raw` (fails when it throws none). */
function decodeError(raw: string): Error {
  try {
    decodeCheckpoint(raw);
  } catch (err) {
    return err as Error;
  }
  throw new Error(`decodeCheckpoint(${JSON.stringify(raw)}) did not throw`);
}

describe('protocol/sync: checkpoint bounds and errors', () => {
  it('ids up to 64 characters, versions from 0, the catalog cursor optional', () => {
    for (const ok of [
      { version: 0, id: '' },
      { version: 3, id: ID_64 },
      { version: 3, id: 'a', catalogVersion: 0, catalogId: ID_64 },
    ]) {
      expect(checkpointSchema.safeParse(ok).success, JSON.stringify(ok)).to.equal(true);
      expect(decodeCheckpoint(encodeCheckpoint(ok))).to.deep.equal(ok);
    }
    for (const bad of [
      { version: 3, id: ID_65 },
      { version: 3, id: 'a', catalogVersion: -1 },
      { version: 3, id: 'a', catalogVersion: 1.5 },
      { version: 3, id: 'a', catalogId: ID_65 },
      { version: 3, id: 7 },
    ]) {
      expect(checkpointSchema.safeParse(bad).success, JSON.stringify(bad)).to.equal(false);
      expect(() => decodeCheckpoint(JSON.stringify(bad)), JSON.stringify(bad)).to.throw(InvalidCheckpointError);
      expect(() => encodeCheckpoint(bad as never), JSON.stringify(bad)).to.throw();
    }
  });

  it('surrounding blanks are ignored, encoded or not', () => {
    const cp = { version: 4, id: 'x' };
    expect(decodeCheckpoint('   ')).to.equal(null);
    expect(decodeCheckpoint(' null ')).to.equal(null);
    expect(decodeCheckpoint(`  ${JSON.stringify(cp)}  `)).to.deep.equal(cp);
    expect(decodeCheckpoint(` ${encodeCheckpoint(cp)} `)).to.deep.equal(cp);
    expect(decodeCheckpoint(encodeURIComponent(` ${JSON.stringify(cp)} `))).to.deep.equal(cp);
  });

  it('each kind of malformed checkpoint says what is wrong', () => {
    const encoding = decodeError('%E0%A4%A');
    expect(encoding).to.be.instanceOf(InvalidCheckpointError);
    expect(encoding.name).to.equal('InvalidCheckpointError');
    expect(encoding.message).to.equal('checkpoint is not valid URL encoding');
    expect(decodeError('{').message).to.equal('checkpoint is not valid JSON');
    expect(decodeError('%7B').message).to.equal('checkpoint is not valid JSON');
    const invalid = decodeError('{"version":-1,"id":"a"}').message;
    expect(invalid).to.match(/^checkpoint is invalid: /);
    expect(invalid).to.include('version');
  });

  it('a pull query with a bad checkpoint fails with that message at `checkpoint`', () => {
    const r = pullQuerySchema.safeParse({ schema: '1', checkpoint: '{' });
    expect(r.success).to.equal(false);
    if (r.success) return;
    expect(r.error.issues).to.have.length(1);
    expect(r.error.issues[0]!.message).to.equal('checkpoint is not valid JSON');
    expect(r.error.issues[0]!.path).to.deep.equal(['checkpoint']);
  });

  it('schema= is a whole number from 0; limit= from 1', () => {
    for (const q of [{ schema: '-1' }, { schema: '1.5' }, { schema: 'x' }]) {
      expect(pushQuerySchema.safeParse(q).success, JSON.stringify(q)).to.equal(false);
      expect(pullQuerySchema.safeParse(q).success, JSON.stringify(q)).to.equal(false);
    }
    expect(pullQuerySchema.parse({ schema: '0', limit: '1' })).to.deep.equal({ checkpoint: null, limit: 1, schema: 0 });
    expect(pullQuerySchema.safeParse({ schema: '1', limit: '2.5' }).success).to.equal(false);
  });
});

describe('protocol/sync: URLs', () => {
  it('pull and push paths of every collection', () => {
    for (const c of COLLECTIONS) {
      expect(syncPath(c, 'pull')).to.equal(`/api/sync/${c}/pull`);
      expect(syncPath(c, 'push')).to.equal(`/api/sync/${c}/push`);
    }
  });

  it('a first pull carries schema and limit; a later one its checkpoint, encoded', () => {
    expect(pullUrl('items', null, 50)).to.equal(`/api/sync/items/pull?schema=${SCHEMA_VERSION}&limit=50`);
    expect(pullUrl('lists', null, 10, 3)).to.equal('/api/sync/lists/pull?schema=3&limit=10');
    const cp = { version: 9, id: 'a&b', catalogVersion: 2, catalogId: 'c' };
    const url = pullUrl('products', cp, 100, 4);
    expect(url).to.equal(`/api/sync/products/pull?schema=4&limit=100&checkpoint=${encodeCheckpoint(cp)}`);
    const params = new URL(`http://x${url}`).searchParams;
    expect(pullQuerySchema.parse(Object.fromEntries(params))).to.deep.equal({ checkpoint: cp, limit: 100, schema: 4 });
  });
});

describe('protocol/sync: bodies of every collection', () => {
  for (const c of COLLECTIONS) {
    it(`${c}: pull, push and answer bodies take its docs and refuse another shape`, () => {
      fc.assert(
        fc.property(arbDoc(c), arbDoc(c), (a, b) => {
          expect(pullResponseSchemas[c].parse({ documents: [a, b], checkpoint: null })).to.deep.equal({
            documents: [a, b],
            checkpoint: null,
          });
          expect(pushRowSchemas[c].parse({ assumedMasterState: b, newDocumentState: a })).to.deep.equal({
            assumedMasterState: b,
            newDocumentState: a,
          });
          expect(pushRequestSchemas[c].safeParse([{ newDocumentState: a }]).success).to.equal(true);
          expect(pushResponseSchemas[c].parse({ conflicts: [a], rejected: [] })).to.deep.equal({
            conflicts: [a],
            rejected: [],
          });
        }),
        { numRuns: 10 },
      );
      const bad = { id: 'x' };
      expect(pullResponseSchemas[c].safeParse({ documents: [bad], checkpoint: null }).success).to.equal(false);
      expect(pullResponseSchemas[c].safeParse({ documents: [] }).success).to.equal(false);
      expect(pushRowSchemas[c].safeParse({ newDocumentState: bad }).success).to.equal(false);
      expect(pushRowSchemas[c].safeParse({}).success).to.equal(false);
      expect(pushRequestSchemas[c].safeParse([{ newDocumentState: bad }]).success).to.equal(false);
      expect(pushResponseSchemas[c].safeParse({ conflicts: [bad], rejected: [] }).success).to.equal(false);
      expect(pushResponseSchemas[c].safeParse({ conflicts: [] }).success).to.equal(false);
    });
  }

  it('a rejected row has an id, a code and a message, all strings', () => {
    const row = { id: 'a', code: 'forbidden', message: 'admin only' };
    expect(rejectedRowSchema.parse({ ...row, extra: 1 })).to.deep.equal(row);
    for (const k of ['id', 'code', 'message'] as const) {
      expect(rejectedRowSchema.safeParse({ ...row, [k]: undefined }).success, k).to.equal(false);
      expect(rejectedRowSchema.safeParse({ ...row, [k]: 1 }).success, k).to.equal(false);
    }
  });

  it('the push envelope: row ids of 1 to 64 characters, any assumed state, at most the row cap', () => {
    expect(pushEnvelopeSchema.safeParse([{ newDocumentState: { id: ID_64 } }]).success).to.equal(true);
    expect(pushEnvelopeSchema.safeParse([{ newDocumentState: { id: ID_65 } }]).success).to.equal(false);
    expect(pushEnvelopeSchema.safeParse([{ newDocumentState: { id: '' } }]).success).to.equal(false);
    expect(pushEnvelopeSchema.safeParse([{ newDocumentState: { id: 5 } }]).success).to.equal(false);
    expect(pushEnvelopeSchema.safeParse([]).success).to.equal(true);
    const parsed = pushEnvelopeSchema.parse([{ assumedMasterState: 'anything', newDocumentState: { id: 'a' } }]);
    expect(parsed).to.deep.equal([{ assumedMasterState: 'anything', newDocumentState: { id: 'a' } }]);
    for (const c of COLLECTIONS) {
      expect(pushRequestSchemas[c].safeParse([]).success, c).to.equal(true);
      expect(pushRequestSchemas[c].safeParse(Array(PUSH_MAX_ROWS + 1).fill({})).success, c).to.equal(false);
    }
  });
});

describe('protocol/sync: references a pushed row may name', () => {
  it('each family collection field that holds another family record id, with its collection', () => {
    expect(DOC_REFERENCES).to.deep.equal({
      lists: [['storeId', 'stores']],
      sections: [['storeId', 'stores']],
      items: [
        ['listId', 'lists'],
        ['sectionId', 'sections'],
        ['familyUnitOfMeasureId', 'units'],
        ['familyProductId', 'products'],
      ],
      ingredients: [
        ['recipeId', 'recipes'],
        ['familyUnitOfMeasureId', 'units'],
        ['familyProductId', 'products'],
      ],
    });
  });
});
