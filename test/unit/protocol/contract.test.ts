import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { COLLECTIONS, SCHEMA_VERSION, clientFields, rxSchemas } from '@family-shopping/client/protocol';

/**
 * Pinned wire contract. The hash covers SCHEMA_VERSION, the collection list, every
 * collection's RxDB JSON schema (generated from the same field table as the zod
 * schemas) and its client-controlled fields.
 *
 * If this test fails you changed the replication wire format. Deployed clients speak
 * the old one, so:
 *   1. bump SCHEMA_VERSION in client-sdk/src/protocol/docs.ts (the server then answers
 *      old clients with 426 schema_outdated), and bump the RxDB schema `version` with a
 *      migration strategy if the local document shape changed;
 *   2. update PINNED_SHA256 below to the value printed in the failure message.
 */
const PINNED_SHA256 = '7bb5bcf3531b6cc43695a7f17af36f5de344ad7d2e0ee3fa5f16625497a4fcba';

/** JSON with object keys sorted, so the hash does not depend on declaration order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

describe('protocol: pinned wire contract', () => {
  it('matches the pinned hash (a change needs a SCHEMA_VERSION bump)', () => {
    const snapshot = { SCHEMA_VERSION, COLLECTIONS, rxSchemas, clientFields };
    const actual = createHash('sha256').update(canonicalJson(snapshot)).digest('hex');
    expect(
      actual,
      `The replication wire contract changed (schema version ${SCHEMA_VERSION}). ` +
        'A change to the wire format needs a SCHEMA_VERSION bump in client-sdk/src/protocol/docs.ts ' +
        `and PINNED_SHA256 in this test updated to '${actual}'.`,
    ).to.equal(PINNED_SHA256);
  });
});
