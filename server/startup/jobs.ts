// Startup behaviours (spec 1.11): reference data, the JWT secret, the default family and the
// staple product seeder. Each is idempotent, so several instances may start at once.
import crypto from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../log.js';
import { stableId } from '../db/ids.js';
import { catalogWrite } from '../db/family-write.js';
import { createFamilyRow } from '../family/public.js';
import { flagsToBits } from '../catalog/public.js';
import { loadProductNames, loadStapleProducts, loadUnits } from '../../seeds/load.js';
import { DEFAULT_LOCALE, LOCALES } from '@family-shopping/client/protocol';
import {
  anyFamilyExists,
  globalProductCategories,
  globalProductNames,
  globalUnitCodes,
  insertGlobalProducts,
  insertGlobalUnits,
  keepSetting,
  lockDefaultFamilyCreation,
  setMissingProductCategories,
  writeProductNames,
} from './queries.js';

/** Global units always exist, in every environment (tests included). */
export async function ensureUnits(db: Db): Promise<number> {
  const units = loadUnits();
  const existing = new Set(await globalUnitCodes(db));
  const missing = units.filter((u) => !existing.has(u.code));
  if (missing.length === 0) return 0;
  return catalogWrite({ db }, async (trx, version) => {
    const rows = missing.map((u) => ({
      id: stableId('unit', u.code),
      code: u.code,
      name: u.name,
      abbreviation: u.abbreviation,
      category: u.category,
      catalog_version: version,
    }));
    return insertGlobalUnits(trx, rows);
  });
}

/**
 * The staple product seeder: insert-or-ignore on the stable key, each with its category; an
 * existing staple without a category gets the file's (api-contract §10). Both are one catalog
 * write, so the rows carry the catalog version devices pull after. Idempotent and safe with
 * several instances starting at once: the catalog counter serialises the writes, the insert
 * ignores keys already there and the update skips products that have a category by then.
 */
export async function seedStapleProducts(db: Db): Promise<number> {
  const products = loadStapleProducts();
  const existing = new Map((await globalProductCategories(db)).map((p) => [p.key, p.category]));
  const missing = products.filter((p) => !existing.has(p.key));
  const uncategorized = products.filter((p) => existing.has(p.key) && existing.get(p.key) == null);
  if (missing.length === 0 && uncategorized.length === 0) return 0;
  return catalogWrite({ db }, async (trx, version) => {
    const rows = missing.map((p) => ({
      id: stableId('product', p.key),
      key: p.key,
      name: p.name,
      unit_category_flags: flagsToBits(p.unitCategoryFlags),
      category: p.category,
      catalog_version: version,
    }));
    const added = rows.length ? await insertGlobalProducts(trx, rows) : 0;
    await setMissingProductCategories(
      trx,
      uncategorized.map((p) => ({ key: p.key, category: p.category })),
      version,
    );
    return added;
  });
}

/**
 * The global products' names in the other languages (api-contract §12) from
 * `seeds/product-names.json`: the names missing or different from the file's are written in one
 * catalog write, which also moves the touched products' catalog version, so devices that pulled
 * them before pull them again with their new names. Idempotent and safe with several instances
 * starting at once, as the staple seeder: the catalog counter serialises the writes, and the
 * write decides what is missing again under that lock. Returns how many names were written.
 */
export async function seedProductNames(db: Db): Promise<number> {
  const file = loadProductNames();
  const names = LOCALES.filter((l): l is keyof typeof file => l !== DEFAULT_LOCALE).flatMap((locale) =>
    Object.entries(file[locale] ?? {}).map(([key, name]) => ({ key, locale, name })),
  );
  const stored = new Map((await globalProductNames(db)).map((n) => [`${n.locale} ${n.key}`, n.name]));
  const known = new Set((await globalProductCategories(db)).map((p) => p.key));
  const changed = names.filter((n) => known.has(n.key) && stored.get(`${n.locale} ${n.key}`) !== n.name);
  if (changed.length === 0) return 0;
  return catalogWrite({ db }, (trx, version) => writeProductNames(trx, changed, version));
}

/** JWT_SECRET from configuration, or one generated once and kept in the database. */
export async function ensureJwtSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const generated = crypto.randomBytes(48).toString('base64url');
  return keepSetting(db, 'jwt_secret', generated);
}

/** When no family exists, create the default one. Returns its invite code when created now. */
export async function ensureDefaultFamily(db: Db, config: Config): Promise<{ inviteCode: string } | null> {
  return db.transaction(async (trx) => {
    // Serialise concurrent starts so only one default family is ever created.
    await lockDefaultFamilyCreation(trx);
    if (await anyFamilyExists(trx)) return null;
    const family = await createFamilyRow(trx, {
      name: config.DEFAULT_FAMILY_NAME,
      inviteCode: config.DEFAULT_FAMILY_INVITE_CODE,
    });
    return { inviteCode: family.inviteCode };
  });
}

export async function runStartupJobs(db: Db, config: Config, log: Logger): Promise<{ jwtSecret: string }> {
  await ensureUnits(db);
  const jwtSecret = await ensureJwtSecret(db, config.JWT_SECRET);
  const created = await ensureDefaultFamily(db, config);
  if (created) {
    log.info(
      { inviteCode: created.inviteCode },
      `Created the default family "${config.DEFAULT_FAMILY_NAME}"; its invite code is ${created.inviteCode}`,
    );
  }
  if (config.NODE_ENV !== 'test') {
    const n = await seedStapleProducts(db);
    if (n > 0) log.info({ added: n }, 'Seeded staple products');
    const named = await seedProductNames(db);
    if (named > 0) log.info({ names: named }, 'Seeded product names');
  }
  return { jwtSecret };
}
