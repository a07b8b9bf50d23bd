// The refresh grace needs to answer a rotated refresh token with the same successor it answered
// the first time, yet only hashes of refresh tokens are stored. So a rotation keeps the
// successor's raw token sealed with a key only the rotated token's presenter can derive:
//
//   key    = HKDF-SHA256(ikm = the rotated (predecessor) raw token, info = INFO), 256 bits
//   sealed = "v1." base64url(iv[12] | tag[16] | AES-256-GCM(key, iv, successor raw token))
//
// The database holds the predecessor's SHA-256 only, so the database (or a backup of it) alone
// cannot open the seal: whoever opens it already holds the predecessor, which would have got
// the same successor from the refresh endpoint anyway. Each key seals exactly one message.
import crypto from 'node:crypto';

const INFO = 'family-shopping refresh successor v1';
const PREFIX = 'v1.';

const keyFor = (predecessor: string): Buffer =>
  Buffer.from(crypto.hkdfSync('sha256', Buffer.from(predecessor, 'utf8'), Buffer.alloc(0), INFO, 32));

export function sealSuccessor(predecessor: string, successor: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyFor(predecessor), iv);
  const body = Buffer.concat([cipher.update(successor, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The successor's raw token, or null when the seal does not open with this predecessor. */
export function openSuccessor(predecessor: string, sealed: string): string | null {
  if (!sealed.startsWith(PREFIX)) return null;
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  if (raw.length < 29) return null;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', keyFor(predecessor), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
