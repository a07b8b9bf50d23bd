// Pull: the docs of a collection after a checkpoint, in the family's commit order.
//
// Every family write takes the next value of the family's counter under a row lock and stamps it
// on every row it writes, so versions are handed out in commit order: once a snapshot shows
// version V committed, it shows every version below V as well. A pull reads, in ONE snapshot
// (one statement; for products and units a REPEATABLE READ transaction), the counter, the
// tombstone horizon and the rows with (version, id) after the checkpoint; it can therefore never
// skip a row that commits later (that row gets a higher version than anything the snapshot saw).
//
// When a page reaches the end of what the snapshot holds, the returned checkpoint is
// (counter, MAX_ID): "everything up to the family's current version". That keeps quiet
// collections' checkpoints moving with the family, so a purge of some other table's old
// tombstones does not expire them (and a re-sync from scratch ends past the horizon).
import type { Deps } from '../context.js';
import type { Trx } from '../db/knex.js';
import { validationFailed } from '../errors.js';
import {
  DEFAULT_LOCALE,
  MIN_SCHEMA_VERSION,
  SCHEMA_VERSION,
  docAtSchema,
  isLocale,
  shapeVersionAt,
  type Checkpoint,
  type CollectionName,
  type Locale,
} from '@family-shopping/client/protocol';
import { familyLocale } from '../catalog/public.js';
import { FAMILY_TABLE, familyDoc, isFamilyCollection, productDoc, unitDoc, type WireDoc } from './docs.js';
import { isItemPhaseWalk, pullItemsInPhases } from './pull-items.js';
import {
  MAX_ID,
  catalogCounter,
  familyCounters,
  familyProductRows,
  familyRowsAndCounters,
  familyUnitsAfter,
  globalProductRows,
  globalProductsAfter,
  globalUnitsAfter,
  itemDocsJsonAfter,
  productFamilyRowsAfter,
  type Counters,
  type Cursor,
} from './queries.js';
import {
  checkpointAhead,
  checkpointExpired,
  isExpired,
  type DocsJson,
  type FamilyPosition,
  type PullResult,
} from './pull-result.js';

export type { DocsJson, PullResult };

/** The pull's response body: the docs' JSON text passed through as is when the database wrote
 *  it (the same bytes `JSON.stringify` makes of the docs, held together by the pull tests). */
export function pullBody(r: PullResult): string {
  if (Array.isArray(r.documents)) return JSON.stringify(r);
  return `{"documents":${r.documents.json},"checkpoint":${JSON.stringify(r.checkpoint)}}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function parsePosition(cp: Checkpoint): FamilyPosition {
  const [rowId = '', issued, ...rest] = cp.id.split('/');
  const bad = () => validationFailed([{ path: 'query.checkpoint.id', message: 'not a checkpoint this server issued' }]);
  if (rest.length || (rowId !== '' && !UUID.test(rowId)) || (issued !== undefined && !/^\d{1,18}$/.test(issued)))
    throw bad();
  if (cp.catalogId !== undefined) parseCatalogId(cp.catalogId);
  return { cursor: { version: cp.version, id: rowId }, issuedAt: issued === undefined ? cp.version : Number(issued) };
}

/**
 * The global cursor of a checkpoint: `catalogId` is the last global row's id, plus `/<locale>`
 * when the docs named the products in a language other than English (api-contract §12), plus
 * `/v<shape>` when the docs had fields added after `MIN_SCHEMA_VERSION` (`shapeVersionAt`: a
 * product's `englishName` since schema 3). A plain id is English at the oldest shape, as every
 * checkpoint issued before the catalog had languages. Both ride in the id, which every client
 * sends back as it got it, so a client that knows nothing of them (an older SDK strips fields its
 * schema does not name) still returns them.
 */
interface CatalogPosition {
  cursor: Cursor;
  locale: Locale;
  shape: number;
}

const catalogIdIn = (rowId: string, locale: Locale, shape: number) =>
  rowId + (locale === DEFAULT_LOCALE ? '' : `/${locale}`) + (shape === MIN_SCHEMA_VERSION ? '' : `/v${shape}`);

function parseCatalogId(raw: string): { id: string; locale: Locale; shape: number } {
  const parts = raw.split('/');
  const rowId = parts.shift() ?? '';
  const locale = parts[0] !== undefined && isLocale(parts[0]) ? (parts.shift() as Locale) : DEFAULT_LOCALE;
  const version = parts[0] !== undefined && /^v\d{1,3}$/.test(parts[0]) ? Number(parts.shift()!.slice(1)) : undefined;
  const shape = version ?? MIN_SCHEMA_VERSION;
  // Only the spelling this server issues (no `/en`, no `/v2`, nothing more).
  if (
    parts.length ||
    (rowId !== '' && !UUID.test(rowId)) ||
    shape > SCHEMA_VERSION ||
    catalogIdIn(rowId, locale, shape) !== raw
  ) {
    throw validationFailed([{ path: 'query.checkpoint.catalogId', message: 'not a checkpoint this server issued' }]);
  }
  return { id: rowId, locale, shape };
}

function catalogPosition(cp: Checkpoint | null): CatalogPosition | null {
  if (cp?.catalogVersion === undefined) return null;
  const { id, locale, shape } = parseCatalogId(cp.catalogId ?? '');
  return { cursor: { version: cp.catalogVersion, id }, locale, shape };
}

/** Checkpoint id of a page that stopped before the end. */
const midWalkId = (rowId: string, issuedAt: number) => `${rowId}/${issuedAt}`;

/** The checkpoint after a page that read `read` rows for a `limit` (one more than the page means
 *  it stopped before the end): past the family's counter at the end of the snapshot, else at
 *  the page's last row, mid-walk. */
function nextCheckpoint(
  read: number,
  limit: number,
  counters: Counters,
  last: { version: number | string; id: string },
  issuedAt: number,
): Checkpoint {
  return read <= limit
    ? { version: counters.version, id: MAX_ID }
    : { version: Number(last.version), id: midWalkId(last.id, issuedAt) };
}

/** Refuses a position the counters cannot serve: older than the tombstone horizon (410), or
 *  beyond what this family's counter has handed out (400). */
function checkPosition(position: FamilyPosition | null, counters: Counters): void {
  if (isExpired(position, counters)) throw checkpointExpired();
  if (position && Math.max(position.cursor.version, position.issuedAt) > counters.version) throw checkpointAhead();
}

export async function pullDocs(
  deps: Pick<Deps, 'db' | 'statementFunctions'>,
  familyId: string,
  collection: CollectionName,
  checkpoint: Checkpoint | null,
  limit: number,
  schema: number = SCHEMA_VERSION,
): Promise<PullResult> {
  // Items from no checkpoint: active items first, then history (pull-items.ts).
  if (collection === 'items' && isItemPhaseWalk(checkpoint))
    return pullItemsInPhases(deps, familyId, checkpoint, limit);
  const position = checkpoint ? parsePosition(checkpoint) : null;
  const familyCursor: Cursor | null = position?.cursor ?? null;

  if (collection === 'items') {
    // The biggest collection: its page's JSON is built by the database (one text value instead
    // of 1,000 rows of 18 columns through the driver and the row → doc mapping; so a field added
    // to items after MIN_SCHEMA_VERSION needs an older-shape JSON here too), and the page
    // and the counters come from one statement, one snapshot: no transaction around it.
    const page = await itemDocsJsonAfter(deps.db, familyId, familyCursor, limit, {
      viaFunction: deps.statementFunctions === true,
    });
    const { counters } = page;
    checkPosition(position, counters);
    if (!page.last) return { documents: [], checkpoint };
    const next = nextCheckpoint(page.rows, limit, counters, page.last, position?.issuedAt ?? counters.version);
    return { documents: { json: page.json, count: Math.min(page.rows, limit) }, checkpoint: next };
  }

  if (isFamilyCollection(collection)) {
    // The page and the counters in one statement, one snapshot, as for items.
    const { rows, counters } = await familyRowsAndCounters(
      deps.db,
      FAMILY_TABLE[collection],
      familyId,
      familyCursor,
      limit + 1,
    );
    checkPosition(position, counters);
    const page = rows.slice(0, limit);
    if (page.length === 0) return { documents: [], checkpoint };
    const last = page[page.length - 1]!;
    const next = nextCheckpoint(
      rows.length,
      limit,
      counters,
      { version: String(last.version), id: String(last.id) },
      position?.issuedAt ?? counters.version,
    );
    return { documents: page.map((r) => docAtSchema(collection, familyDoc(collection, r), schema)), checkpoint: next };
  }

  return deps.db.transaction(
    async (trx) => {
      const counters = await familyCounters(trx, familyId);
      checkPosition(position, counters);
      const issuedAt = position?.issuedAt ?? counters.version;

      const catalog = catalogPosition(checkpoint);
      if (catalog && catalog.cursor.version > (await catalogCounter(trx))) throw checkpointAhead();
      // The products are named in the family's locale, read in this snapshot with the rows. When
      // it is not the one the client's global cursor was read in (the family changed its
      // language), every global product's effective name may differ: the global side starts
      // again from the beginning, in this locale; the family side goes on from its cursor.
      // Likewise when the docs of this schema have fields the client's were read without (an
      // upgraded client's first pull at schema 3: every global product's `englishName`); the
      // family side's docs need no new pull (a family product's `englishName` is null, as a
      // migrated local doc has it, and an override's global product comes with the global side).
      const locale = collection === 'products' ? await familyLocale(trx, familyId) : DEFAULT_LOCALE;
      const shape = shapeVersionAt(collection, schema);
      const catalogCursor: Cursor | null =
        catalog && catalog.locale === locale && catalog.shape === shape ? catalog.cursor : null;

      // Family side first (family rows and overrides, by version), then the global catalog.
      const family =
        collection === 'products'
          ? await productFamilySide(trx, familyId, familyCursor, limit)
          : await unitFamilySide(trx, familyId, familyCursor, limit);
      const documents = family.docs;
      let familyNext: Cursor = checkpoint ? { version: checkpoint.version, id: checkpoint.id } : { version: 0, id: '' };
      if (family.docs.length > 0 || family.exhausted) {
        familyNext = family.exhausted
          ? { version: counters.version, id: MAX_ID }
          : { version: family.last!.version, id: midWalkId(family.last!.id, issuedAt) };
      }
      let catalogNext: Cursor | null = catalogCursor;
      const room = limit - documents.length;
      if (family.exhausted && room > 0) {
        const global =
          collection === 'products'
            ? await globalProductSide(trx, familyId, catalogCursor, room)
            : await globalUnitSide(trx, catalogCursor, room);
        documents.push(...global.docs);
        if (global.docs.length > 0) {
          catalogNext = global.exhausted ? { version: await catalogCounter(trx), id: MAX_ID } : global.last!;
        }
      }
      if (documents.length === 0) return { documents, checkpoint };
      const next: Checkpoint = { version: familyNext.version, id: familyNext.id };
      if (catalogNext) {
        next.catalogVersion = catalogNext.version;
        next.catalogId = catalogIdIn(catalogNext.id, locale, shape);
      }
      return { documents: documents.map((d) => docAtSchema(collection, d, schema)), checkpoint: next };
    },
    { isolationLevel: 'repeatable read' },
  );
}

interface Side {
  docs: WireDoc[];
  exhausted: boolean;
  last?: Cursor;
}

async function productFamilySide(trx: Trx, familyId: string, cursor: Cursor | null, limit: number): Promise<Side> {
  const rows = await productFamilyRowsAfter(trx, familyId, cursor, limit + 1);
  const page = rows.slice(0, limit);
  const familyIds = page.filter((r) => r.src === 'family').map((r) => r.product_id);
  const globalIds = page.filter((r) => r.src === 'override').map((r) => r.product_id);
  const fam = new Map(
    (await familyProductRows(trx, familyId, familyIds)).map((r) => [r.id, productDoc(r, !!r.deleted)]),
  );
  const glob = new Map((await globalProductRows(trx, familyId, globalIds)).map((r) => [r.id, productDoc(r)]));
  // An override change or clear re-emits the global product's effective doc (never a tombstone).
  const docs = page
    .map((r) => (r.src === 'family' ? fam.get(r.product_id) : glob.get(r.product_id)))
    .filter((d): d is WireDoc => !!d);
  const last = page[page.length - 1];
  return { docs, exhausted: rows.length <= limit, last: last && { version: Number(last.version), id: last.cursor_id } };
}

async function unitFamilySide(trx: Trx, familyId: string, cursor: Cursor | null, limit: number): Promise<Side> {
  const rows = await familyUnitsAfter(trx, familyId, cursor, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    docs: page.map((r) => unitDoc(r, !!r.deleted)),
    exhausted: rows.length <= limit,
    last: last && { version: Number(last.version), id: last.id },
  };
}

async function globalProductSide(trx: Trx, familyId: string, cursor: Cursor | null, limit: number): Promise<Side> {
  const rows = await globalProductsAfter(trx, familyId, cursor, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    docs: page.map((r) => productDoc(r)),
    exhausted: rows.length <= limit,
    last: last && { version: Number(last.catalog_version), id: last.id },
  };
}

async function globalUnitSide(trx: Trx, cursor: Cursor | null, limit: number): Promise<Side> {
  const rows = await globalUnitsAfter(trx, cursor, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    docs: page.map((r) => unitDoc(r)),
    exhausted: rows.length <= limit,
    last: last && { version: Number(last.catalog_version), id: last.id },
  };
}
