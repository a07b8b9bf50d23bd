// The SDK hashes for RxDB with @noble/hashes, not crypto.subtle (missing outside secure
// contexts). Its digests must equal those of RxDB's default hash, or a local database created
// before would no longer open (RxDB stores each collection's schema hash).
import { expect } from 'chai';
import { createRxSchema } from 'rxdb';
import { defaultHashSha256 } from 'rxdb/plugins/utils';
import { sha256Hex, sha256HexPortable } from '../../../client-sdk/src/hash.js';
import { newId } from '../../../client-sdk/src/ids.js';
import { COLLECTIONS, rxSchemas } from '@family-shopping/client/protocol';

describe('SDK: hash and ids without crypto.subtle', () => {
  it('hashes every input kind exactly as RxDB’s default SHA-256', async () => {
    const inputs: (string | ArrayBuffer | Blob)[] = [
      '',
      'abc',
      'Grüße 🍎 ünïcode',
      'x'.repeat(100_000),
      new TextEncoder().encode('bytes ✓').buffer,
      new Blob(['a blob ✓']),
    ];
    for (const input of inputs) {
      const rxdb = await defaultHashSha256(input);
      expect(await sha256HexPortable(input)).to.equal(rxdb);
      expect(await sha256Hex(input)).to.equal(rxdb);
    }
    expect(await sha256HexPortable('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('gives every collection the schema hash RxDB’s default gives it', async () => {
    for (const c of COLLECTIONS) {
      const ours = await createRxSchema(rxSchemas[c] as never, sha256HexPortable).hash;
      const rxdb = await createRxSchema(rxSchemas[c] as never, defaultHashSha256).hash;
      expect(ours, c).to.equal(rxdb);
    }
  });

  it('hashes in JavaScript where the context has no crypto.subtle (plain http on a home network)', async () => {
    const subtle = Object.getOwnPropertyDescriptor(globalThis.crypto, 'subtle');
    const crypto = globalThis.crypto as { subtle?: SubtleCrypto };
    Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined, configurable: true });
    try {
      expect(crypto.subtle).to.equal(undefined);
      expect(await sha256Hex('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    } finally {
      if (subtle) Object.defineProperty(globalThis.crypto, 'subtle', subtle);
      else delete crypto.subtle;
    }
    expect(crypto.subtle).to.not.equal(undefined);
  });

  it('makes version 4 UUIDs in canonical lowercase form', () => {
    const ids = new Set(Array.from({ length: 1000 }, newId));
    expect(ids.size).to.equal(1000);
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
