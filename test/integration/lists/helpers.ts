// Helpers for the stores, lists and recipes tests: a small REST client bound to a user, the
// family version counter, captured live events, and catalog rows seeded directly (until the
// catalog endpoints are used for it).
import crypto from 'node:crypto';
import type { RunningServer } from '../../../server/server.js';
import { familyWrite } from '../../../server/db/family-write.js';
import type { FamilyEvent } from '../../../server/events/bus.js';
import { newId } from '../../../server/db/ids.js';
import { request, type HttpResult } from '../../helpers/app.js';
import type { TestUser } from '../../helpers/factories.js';
import { insertGlobalProductRow } from '../../helpers/versioned.js';

export type Call = (method: string, path: string, body?: unknown) => Promise<HttpResult>;

export function client(app: RunningServer, user: TestUser): Call {
  return (method, path, body) => request(app, method, `/api${path}`, { token: user.token, body });
}

export async function familyVersion(app: RunningServer, familyId: string): Promise<number> {
  const row = await app.deps.db('family_counters').where({ family_id: familyId }).first('version');
  return Number(row.version);
}

/** Runs `fn` and returns its result plus how much the family version moved. */
export async function bumps<T>(
  app: RunningServer,
  familyId: string,
  fn: () => Promise<T>,
): Promise<{ result: T; delta: number }> {
  const before = await familyVersion(app, familyId);
  const result = await fn();
  return { result, delta: (await familyVersion(app, familyId)) - before };
}

/** Collects the live events published for one family. */
export function captureEvents(app: RunningServer, familyId: string) {
  const events: FamilyEvent[] = [];
  const stop = app.deps.bus.subscribe((fid, evs) => {
    if (fid === familyId) events.push(...evs);
  });
  return {
    events,
    stop,
    of: (type: string) => events.filter((e) => e.type === type),
    clear: () => events.splice(0, events.length),
  };
}

export async function globalUnitId(app: RunningServer, code = 'each'): Promise<string> {
  const row = await app.deps.db('units_of_measure').where({ code }).first('id');
  return String(row.id);
}

export async function seedGlobalProduct(
  app: RunningServer,
  name = `Product ${crypto.randomBytes(4).toString('hex')}`,
): Promise<string> {
  return insertGlobalProductRow(app, { name });
}

export async function seedFamilyProduct(
  app: RunningServer,
  familyId: string,
  name = `FP ${crypto.randomBytes(4).toString('hex')}`,
): Promise<string> {
  const id = newId();
  await familyWrite(app.deps, familyId, (w) => w.insert('family_products', { id, name, unit_category_flags: 0 }));
  return id;
}

export async function seedFamilyUnit(app: RunningServer, familyId: string): Promise<string> {
  const id = newId();
  const abbr = `u${crypto.randomBytes(3).toString('hex')}`;
  await familyWrite(app.deps, familyId, (w) =>
    w.insert('family_units_of_measure', { id, name: `Unit ${abbr}`, abbreviation: abbr, category: 'Count' }),
  );
  return id;
}

export const uuid = () => crypto.randomUUID();
