/**
 * New record ids: random (version 4) UUIDs in canonical lowercase form. `crypto.randomUUID()` is
 * given to secure contexts only; `crypto.getRandomValues()` (through @noble/hashes) to every
 * page, so a page opened over plain http on a home network makes ids too.
 */
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';

export function newId(): string {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40; // version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // variant 10xx (RFC 9562)
  const h = bytesToHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
