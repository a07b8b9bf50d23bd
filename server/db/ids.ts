import crypto from 'node:crypto';

export const newId = (): string => crypto.randomUUID();

// Name-based UUID (version 5 layout) so reference data has the same ids in every environment.
const NAMESPACE = Buffer.from('6f1d2c1e8b4a4f0e9a55c0ffee5a1e01', 'hex');

export function stableId(kind: string, key: string): string {
  const hash = crypto.createHash('sha1').update(NAMESPACE).update(`${kind}:${key}`).digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Random URL-safe secret with at least 256 bits of entropy. */
export const randomToken = (bytes = 32): string => crypto.randomBytes(bytes).toString('base64url');

export const sha256 = (value: string): string => crypto.createHash('sha256').update(value).digest('hex');

/** Short human-shareable family code (about 60 bits). */
export function randomInviteCode(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = crypto.randomBytes(12);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}
