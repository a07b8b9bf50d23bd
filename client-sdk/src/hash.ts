/**
 * The hash RxDB stores with the local database (schema hashes, replication identifiers): SHA-256
 * as lowercase hex, from @noble/hashes. RxDB's default hashes with `crypto.subtle`, which a
 * browser gives to secure contexts only (https, localhost); this one also runs on a page opened
 * over plain http on a home network. Its digests equal the default's, byte for byte, so a
 * database created with the default opens unchanged.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { HashFunction } from 'rxdb';

export const sha256Hex: HashFunction = async (input) => {
  const bytes =
    typeof input === 'string'
      ? utf8ToBytes(input)
      : new Uint8Array(input instanceof ArrayBuffer ? input : await input.arrayBuffer());
  return bytesToHex(sha256(bytes));
};
