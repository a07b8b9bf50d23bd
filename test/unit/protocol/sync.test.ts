import { expect } from 'chai';
import fc from 'fast-check';
import {
  InvalidCheckpointError,
  PULL_LIMIT_DEFAULT,
  PULL_LIMIT_MAX,
  PUSH_MAX_ROWS,
  decodeCheckpoint,
  encodeCheckpoint,
  pullQuerySchema,
  pullResponseSchemas,
  pushEnvelopeSchema,
  pushQuerySchema,
  pushRequestSchemas,
  pushResponseSchemas,
  pushRowSchemas,
  syncPath,
  type Checkpoint,
} from '@family-shopping/client/protocol';
import { arbDoc } from './arbitraries.js';

const arbCheckpoint: fc.Arbitrary<Checkpoint> = fc.record(
  {
    version: fc.nat(),
    id: fc.string({ maxLength: 64 }),
    catalogVersion: fc.nat(),
    catalogId: fc.string({ maxLength: 64 }),
  },
  { requiredKeys: ['version', 'id'] },
);

describe('protocol/sync', () => {
  it('has the contract limits', () => {
    expect([PULL_LIMIT_DEFAULT, PULL_LIMIT_MAX, PUSH_MAX_ROWS]).to.deep.equal([100, 1000, 500]);
    expect(syncPath('sectionMemory', 'pull')).to.equal('/api/sync/sectionMemory/pull');
  });

  describe('checkpoint codec', () => {
    it('round-trips through a URL, encoded or already decoded by the framework', () => {
      fc.assert(
        fc.property(arbCheckpoint, (cp) => {
          const encoded = encodeCheckpoint(cp);
          expect(encoded).to.not.match(/[{}"&#?= ]/);
          expect(decodeCheckpoint(encoded)).to.deep.equal(cp);
          const url = new URL(`http://x/api/sync/items/pull?checkpoint=${encoded}&limit=5`);
          const raw = url.searchParams.get('checkpoint');
          expect(decodeCheckpoint(raw)).to.deep.equal(cp);
          expect(pullQuerySchema.parse({ checkpoint: raw, schema: '1' }).checkpoint).to.deep.equal(cp);
        }),
      );
    });

    it('absent, empty or null means from the start', () => {
      expect(decodeCheckpoint(undefined)).to.equal(null);
      expect(decodeCheckpoint(null)).to.equal(null);
      expect(decodeCheckpoint('')).to.equal(null);
      expect(decodeCheckpoint('null')).to.equal(null);
      expect(decodeCheckpoint('%6E%75%6C%6C')).to.equal(null);
    });

    it('rejects malformed checkpoints', () => {
      for (const bad of [
        '{',
        '%7B',
        '%E0%A4%A',
        '{"version":-1,"id":"a"}',
        '{"version":1.5,"id":"a"}',
        '{"id":"a"}',
        '[]',
        '42',
        'abc',
      ]) {
        expect(() => decodeCheckpoint(bad), bad).to.throw(InvalidCheckpointError);
      }
    });
  });

  describe('query strings', () => {
    it('pull: defaults, coercion and bounds', () => {
      expect(pullQuerySchema.parse({ schema: '1' })).to.deep.equal({ checkpoint: null, limit: 100, schema: 1 });
      expect(pullQuerySchema.parse({ schema: '1', limit: '1000' }).limit).to.equal(1000);
      for (const q of [
        { schema: '1', limit: '1001' },
        { schema: '1', limit: '0' },
        { schema: '1', limit: 'x' },
        {},
        { schema: 'v1' },
        { schema: '1', checkpoint: '{' },
      ]) {
        expect(pullQuerySchema.safeParse(q).success, JSON.stringify(q)).to.equal(false);
      }
      expect(pushQuerySchema.parse({ schema: '0' })).to.deep.equal({ schema: 0 });
    });
  });

  describe('bodies', () => {
    it('push rows, requests and responses validate docs', () => {
      fc.assert(
        fc.property(arbDoc('items'), arbDoc('items'), (a, b) => {
          expect(pushRowSchemas.items.parse({ newDocumentState: a })).to.deep.equal({ newDocumentState: a });
          expect(pushRowSchemas.items.safeParse({ assumedMasterState: null, newDocumentState: a }).success).to.equal(
            true,
          );
          expect(pushRequestSchemas.items.safeParse([{ assumedMasterState: b, newDocumentState: a }]).success).to.equal(
            true,
          );
          expect(pushResponseSchemas.items.safeParse({ conflicts: [b], rejected: [] }).success).to.equal(true);
          expect(
            pullResponseSchemas.items.safeParse({ documents: [a, b], checkpoint: { version: 3, id: a.id } }).success,
          ).to.equal(true);
        }),
        { numRuns: 50 },
      );
      expect(pushRowSchemas.lists.safeParse({ newDocumentState: { id: 'x' } }).success).to.equal(false);
      expect(pullResponseSchemas.lists.safeParse({ documents: [], checkpoint: null }).success).to.equal(true);
      expect(
        pushResponseSchemas.lists.safeParse({
          conflicts: [],
          rejected: [{ id: 'x', code: 'forbidden', message: 'admin only' }],
        }).success,
      ).to.equal(true);
    });

    it(`a push takes at most ${PUSH_MAX_ROWS} rows`, () => {
      const row = { newDocumentState: { id: 'a' } };
      expect(pushEnvelopeSchema.safeParse(Array(PUSH_MAX_ROWS).fill(row)).success).to.equal(true);
      expect(pushEnvelopeSchema.safeParse(Array(PUSH_MAX_ROWS + 1).fill(row)).success).to.equal(false);
      expect(pushRequestSchemas.lists.safeParse(Array(PUSH_MAX_ROWS + 1).fill(row)).success).to.equal(false);
    });

    it('the envelope accepts invalid rows (they are rejected one by one) but needs ids', () => {
      const parsed = pushEnvelopeSchema.parse([{ assumedMasterState: 5, newDocumentState: { id: 'a', name: 7 } }]);
      expect(parsed[0]!.newDocumentState).to.deep.equal({ id: 'a', name: 7 });
      expect(pushEnvelopeSchema.safeParse([{ newDocumentState: { name: 'x' } }]).success).to.equal(false);
      expect(pushEnvelopeSchema.safeParse({ newDocumentState: { id: 'a' } }).success).to.equal(false);
    });
  });
});
