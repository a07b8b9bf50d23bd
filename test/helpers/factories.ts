// Factories for isolated families and members. They write through the same functions the app
// uses (family creation, argon2 hashing, token signing).
import argon2 from 'argon2';
import crypto from 'node:crypto';
import type { RunningServer } from '../../server/server.js';
import { createFamilyRow } from '../../server/family/create.js';
import { newId } from '../../server/db/ids.js';
import { signAccessToken } from '../../server/auth/tokens.js';
import type { Role } from '../../server/context.js';

export interface TestUser {
  userId: string;
  email: string;
  userName: string;
  password: string;
  role: Role;
  familyId: string;
  token: string;
}

export interface TestFamily {
  familyId: string;
  name: string;
  inviteCode: string;
  admin: TestUser;
}

const unique = () => crypto.randomBytes(5).toString('hex');
let cachedHash: Promise<string> | undefined;
export const DEFAULT_PASSWORD = 'correct horse battery';

export async function makeUser(app: RunningServer, familyId: string, role: Role = 'member'): Promise<TestUser> {
  const suffix = unique();
  const email = `user-${suffix}@example.test`;
  const userName = `user-${suffix}`;
  cachedHash ??= argon2.hash(DEFAULT_PASSWORD, { type: argon2.argon2id });
  const passwordHash = await cachedHash;
  const userId = newId();
  const db = app.deps.db;
  await db.transaction(async (trx) => {
    await trx('users').insert({
      id: userId,
      email,
      user_name: userName,
      password_hash: passwordHash,
      email_confirmed_at: new Date(),
    });
    await trx('family_memberships').insert({ id: newId(), family_id: familyId, user_id: userId, role });
  });
  const token = signAccessToken(app.deps.jwtSecret, { userId, familyId, role }, 3600, app.deps.clock.now().getTime());
  return { userId, email, userName, password: DEFAULT_PASSWORD, role, familyId, token };
}

export async function makeFamily(app: RunningServer, name = `Family ${unique()}`): Promise<TestFamily> {
  const family = await createFamilyRow(app.deps.db, { name });
  const admin = await makeUser(app, family.id, 'admin');
  return { familyId: family.id, name: family.name, inviteCode: family.inviteCode, admin };
}

export const makeMember = (app: RunningServer, family: TestFamily, role: Role = 'member') =>
  makeUser(app, family.familyId, role);

/**
 * Registers a user through the API (POST /api/auth/register) and returns the session body.
 * `how` is exactly one of inviteToken / familyCode / newFamilyName. Counts against the register
 * rate limit (10/hour per client address); `headers` may carry an X-Forwarded-For for an app
 * started with TRUST_PROXY=true.
 */
export async function registerViaApi(
  app: { url: string },
  how: { inviteToken?: string; familyCode?: string; newFamilyName?: string },
  over: { email?: string; userName?: string; password?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; email: string; userName: string; password: string }> {
  const suffix = unique();
  const email = over.email ?? `user-${suffix}@example.test`;
  const userName = over.userName ?? `user-${suffix}`;
  const password = over.password ?? DEFAULT_PASSWORD;
  const res = await fetch(`${app.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(over.headers ?? {}) },
    body: JSON.stringify({ email, userName, password, ...how }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, email, userName, password };
}
