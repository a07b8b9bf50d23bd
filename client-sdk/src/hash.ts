/**
 * The hash RxDB stores with the local database (schema hashes, replication identifiers): SHA-256
 * as lowercase hex. RxDB's default hashes with `crypto.subtle`, which a browser gives to secure
 * contexts only (https, localhost); a page opened over plain http on a home network has none, so
 * there the SDK hashes with @noble/hashes. Both give the same digests byte for byte, so a database
 * opens the same whichever hashed it; `crypto.subtle` is used where it exists because it is
 * native (on a throttled phone the JavaScript hash of nine schemas costs a noticeable part of an
 * app open).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { HashFunction } from 'rxdb';

const bytesOf = async (input: Parameters<HashFunction>[0]): Promise<Uint8Array<ArrayBuffer>> =>
  typeof input === 'string'
    ? new TextEncoder().encode(input)
    : new Uint8Array(input instanceof ArrayBuffer ? input : await input.arrayBuffer());

/** SHA-256 in JavaScript: runs anywhere, secure context or not. */
export const sha256HexPortable: HashFunction = async (input) => bytesToHex(sha256(await bytesOf(input)));

/** SHA-256 with `crypto.subtle` where the context has it, else in JavaScript. */
export const sha256Hex: HashFunction = async (input) => {
  const subtle = globalThis.crypto?.subtle;
  const bytes = await bytesOf(input);
  return bytesToHex(subtle ? new Uint8Array(await subtle.digest('SHA-256', bytes)) : sha256(bytes));
};
