// Password hashing with argon2id. Login with an unknown email verifies against a dummy hash made
// with the same parameters, so both failure paths cost about the same time.
import argon2 from 'argon2';
import crypto from 'node:crypto';

const OPTIONS = { type: argon2.argon2id } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, OPTIONS);

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;

/** A hash of a random password nobody knows, made once per process. */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(crypto.randomBytes(32).toString('base64url'));
  return dummy;
}

/** Spends the same work as verifyPassword on a real hash, and always answers false. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  await verifyPassword(await dummyPasswordHash(), password);
  return false;
}
