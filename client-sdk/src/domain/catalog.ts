/**
 * `client.products` and `client.units`: the family's effective catalogs as the local database
 * holds them, in the order of `GET /api/products` and `GET /api/units` (the protocol's
 * `searchProducts` and `sortUnits`, which the server uses too), and their offline writes with
 * the rules of `/api/products…` and `/api/units…`.
 *
 * The writes go to the `products` and `units` docs, which replication pushes as the server
 * expects them (docs/sync.md "Push"): a family product or unit is a doc of `kind: 'family'`; the
 * family's override of a global product is the global product's doc with the family's `name`,
 * `unitCategoryFlags` and `category` (the server compares them with the global product's own values: the
 * fields that differ are overridden, a doc equal to the global product drops the override).
 */
import type { RxDocument } from 'rxdb';
import { map, type Observable } from 'rxjs';
import {
  CATALOG_REFUSALS,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  UNIT_CATEGORIES,
  fieldEqual,
  productCreateInput,
  productUpdateInput,
  searchProducts,
  sortUnits,
  unitCreateInput,
  unitUpdateInput,
  type Category,
  type DocData,
  type ProductCreateInput,
  type ProductUpdateInput,
  type UnitCategory,
  type UnitCreateInput,
  type UnitUpdateInput,
} from '../protocol/index.js';
import { FamilyClientError } from '../errors.js';
import {
  DomainModule,
  findDoc,
  invalidField,
  notFound,
  parseInput,
  plain,
  type DomainContext,
  type ProductDoc,
  type UnitDoc,
} from './context.js';

/** The global product's own doc, as this device last saw it without an override. */
interface ProductBase {
  name: string;
  /** Absent in what a device remembered before products had English names: then unknown. */
  englishName?: string | null;
  unitCategoryFlags: UnitCategory[];
  /** Absent in what a device remembered before products had categories: such a base is unknown. */
  category: Category | null;
  updatedAt: string;
}

/** RxDB local document (never replicated) holding a global product's own values. */
const baseKey = (productId: string) => `catalog-base:${productId}`;

/** Flags in the canonical order (Count, Weight, Volume), as the server answers them. */
const canonicalFlags = (flags: readonly UnitCategory[]): UnitCategory[] =>
  UNIT_CATEGORIES.filter((c) => flags.includes(c));

const sameAsBase = (values: Pick<ProductBase, 'name' | 'unitCategoryFlags' | 'category'>, base: ProductBase) =>
  values.name === base.name &&
  fieldEqual('unitCategoryFlags', values.unitCategoryFlags, base.unitCategoryFlags) &&
  values.category === base.category;

/** A create's client-chosen id: the family doc of that id (the create is a re-send), or null
 *  when the id is free; an id a global doc of the same catalog holds is refused. Products and
 *  units are two id spaces, as on the server (a unit's id is free for a product). */
async function knownFamilyDoc<C extends 'products' | 'units'>(
  ctx: DomainContext,
  name: C,
  id: string | undefined,
): Promise<DocData<C> | null> {
  if (!id) return null;
  const existing = await findDoc(ctx, name, id);
  if (existing?.kind === 'family') return plain(existing);
  if (existing) throw invalidField('id', CATALOG_REFUSALS.idTaken.message);
  return null;
}

export class Products extends DomainModule {
  /** `GET /api/products?q=&limit=`: case-insensitive substring match, prefix matches first,
   *  then by name; `limit` 1..200 (default 50). Emits again on every change of the catalog. */
  search$(q = '', options: { limit?: number } = {}): Observable<ProductDoc[]> {
    const limit = options.limit ?? SEARCH_LIMIT_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
      throw invalidField('limit', `must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
    }
    if (typeof q !== 'string' || [...q].length > 200) throw invalidField('q', 'must be at most 200 characters long');
    return this.collection('products')
      .find()
      .$.pipe(
        map((docs) =>
          searchProducts(
            docs.map((d) => plain(d)),
            q,
            limit,
          ),
        ),
      );
  }

  /** `POST /api/products`: a family product (names unique in the family's products, any letter
   *  case). A known `id` of a family product returns it unchanged. */
  async create(input: ProductCreateInput): Promise<ProductDoc> {
    const v = parseInput(productCreateInput, input);
    const existing = await knownFamilyDoc(this.ctx, 'products', v.id);
    if (existing) return existing;
    await this.assertNameFree(v.name);
    return this.insertDoc('products', {
      id: v.id,
      kind: 'family',
      name: v.name,
      englishName: null,
      unitCategoryFlags: canonicalFlags(v.unitCategoryFlags ?? []),
      category: v.category ?? null,
      overridden: false,
    });
  }

  /**
   * A family product: `PATCH /api/products/{id}`. A global product: the family's override
   * (`PUT /api/products/{id}/override`), with patch semantics: a field left out keeps its
   * current (effective) value. Setting both back to the global product's own values drops the
   * override, as the server does.
   */
  async update(productId: string, patch: ProductUpdateInput): Promise<ProductDoc> {
    const v = parseInput(productUpdateInput, patch);
    const doc = await this.live(productId);
    const flags = v.unitCategoryFlags === undefined ? undefined : canonicalFlags(v.unitCategoryFlags);
    if (doc.kind === 'family') {
      if (v.name !== undefined) await this.assertNameFree(v.name, doc.id);
      return this.patchDoc(doc, { name: v.name, unitCategoryFlags: flags, category: v.category });
    }
    const base = await this.base(doc);
    const next = {
      name: v.name ?? doc.name,
      unitCategoryFlags: flags ?? doc.unitCategoryFlags,
      category: v.category !== undefined ? v.category : doc.category,
    };
    if (base && sameAsBase(next, base)) return this.restore(doc, base);
    // Without the global values (an override made elsewhere) the override stays until the server says.
    return this.patchDoc(doc, {
      name: v.name,
      englishName: this.englishNameFor(doc, next.name, base),
      unitCategoryFlags: flags,
      category: v.category,
      overridden: true,
    });
  }

  /** `englishName` once the name is `name`, as the server will derive it: null while the family
   *  renames the product (a name other than the global product's own), the global product's own
   *  when the name is its own; undefined (unchanged) where this device cannot tell. */
  private englishNameFor(doc: ProductDoc, name: string, base: ProductBase | null): string | null | undefined {
    if (base) return name === base.name ? base.englishName : null;
    return name === doc.name ? undefined : null;
  }

  /**
   * `DELETE /api/products/{id}/override`: the global product's own name and unit categories
   * again. Offline when this device knows them (it saw the product without an override, e.g.
   * before changing it here); otherwise this call is online-only: it asks the server (throws
   * `FamilyApiError` `network_error` offline) and the local doc follows with the next pull.
   * Resolves to the local doc (when it asked the server: as it stood before that pull).
   */
  async clearOverride(productId: string): Promise<ProductDoc> {
    const doc = await this.live(productId);
    if (doc.kind !== 'global') throw notFound('Product');
    if (!doc.overridden) return plain(doc);
    const base = await this.base(doc);
    if (base) return this.restore(doc, base);
    if (!this.ctx.rest) throw new FamilyClientError('not_found', 'the global product’s own values are unknown here');
    await this.ctx.rest('DELETE', `/api/products/${doc.id}/override`);
    return plain(doc);
  }

  /** `DELETE /api/products/{id}` (family products only): items and ingredients that link it
   *  keep their name and lose the link; the stores forget its remembered sections. Resolves to
   *  the product as it was. */
  async delete(productId: string): Promise<ProductDoc> {
    const doc = await this.live(productId);
    if (doc.kind !== 'family') throw notFound('Product');
    return this.removeDoc(doc, async () => {
      for (const name of ['items', 'ingredients'] as const) {
        for (const linked of await this.findDocs(name, { familyProductId: doc.id })) {
          await this.patchDoc(linked, { familyProductId: null });
        }
      }
      await this.removeDocs('sectionMemory', { familyProductId: doc.id });
    });
  }

  /** Back to the global product's own doc as this device saw it (its `updatedAt` too: when the
   *  server never saw the override, nothing comes back from it to correct a new stamp). */
  private async restore(doc: RxDocument<ProductDoc>, base: ProductBase): Promise<ProductDoc> {
    const current = plain(doc);
    if (!current.overridden && sameAsBase(current, base)) return current;
    const { name, unitCategoryFlags, category, updatedAt } = base;
    // A base remembered before products had English names: the doc's stays until the next pull.
    const englishName = base.englishName === undefined ? {} : { englishName: base.englishName };
    return plain(
      await doc.incrementalPatch({ name, ...englishName, unitCategoryFlags, category, updatedAt, overridden: false }),
    );
  }

  private live(productId: string) {
    return this.liveDoc('products', productId, 'Product');
  }

  /** The global product's own values: the doc's while it has no override (remembered then, as
   *  the override about to be written hides them), else the ones remembered here (the name
   *  taken from the doc while its override keeps the name), or null. */
  private async base(doc: ProductDoc): Promise<ProductBase | null> {
    if (!doc.overridden) {
      const base: ProductBase = {
        name: doc.name,
        englishName: doc.englishName,
        unitCategoryFlags: [...doc.unitCategoryFlags],
        category: doc.category,
        updatedAt: doc.updatedAt,
      };
      await this.ctx.db.upsertLocal<ProductBase>(baseKey(doc.id), base);
      return base;
    }
    const local = await this.ctx.db.getLocal<ProductBase>(baseKey(doc.id));
    const remembered = local ? (local.toJSON().data as Partial<ProductBase>) : null;
    if (!remembered || remembered.category === undefined) return null;
    const base = remembered as ProductBase;
    // An override that keeps the global product's name (`englishName` set: not renamed) shows
    // that name as the family sees it now, e.g. in the language the family switched to since.
    if (doc.englishName != null && (base.name !== doc.name || base.englishName !== doc.englishName)) {
      const fresh: ProductBase = { ...base, name: doc.name, englishName: doc.englishName };
      await this.ctx.db.upsertLocal<ProductBase>(baseKey(doc.id), fresh);
      return fresh;
    }
    return base;
  }

  private async assertNameFree(name: string, exceptId?: string): Promise<void> {
    const lower = name.toLowerCase();
    const family = await this.findDocs('products', { kind: 'family' });
    if (family.some((p) => p.id !== exceptId && p.name.toLowerCase() === lower)) {
      throw invalidField('name', CATALOG_REFUSALS.duplicateProductName.message);
    }
  }
}

export class Units extends DomainModule {
  /** `GET /api/units`: global units, then the family's. */
  all$(): Observable<UnitDoc[]> {
    return this.collection('units')
      .find()
      .$.pipe(map((docs) => sortUnits(docs.map((d) => plain(d)))));
  }

  /** `POST /api/units`: a family unit; the abbreviation must not be used by any unit, global or
   *  the family's (any letter case). A known `id` of a family unit returns it unchanged. */
  async create(input: UnitCreateInput): Promise<UnitDoc> {
    const v = parseInput(unitCreateInput, input);
    const existing = await knownFamilyDoc(this.ctx, 'units', v.id);
    if (existing) return existing;
    await this.assertAbbreviationFree(v.abbreviation);
    return this.insertDoc('units', {
      id: v.id,
      kind: 'family',
      code: null,
      name: v.name,
      abbreviation: v.abbreviation,
      category: v.category,
    });
  }

  /** `PATCH /api/units/{id}` (family units only; a global unit is `not_found`, as in REST). */
  async update(unitId: string, patch: UnitUpdateInput): Promise<UnitDoc> {
    const v = parseInput(unitUpdateInput, patch);
    const doc = await this.family(unitId);
    if (v.abbreviation !== undefined) await this.assertAbbreviationFree(v.abbreviation, doc.id);
    return this.patchDoc(doc, { name: v.name, abbreviation: v.abbreviation, category: v.category });
  }

  /** `DELETE /api/units/{id}` (family units only). Refused with `FamilyClientError`
   *  `unit_in_use` (REST's code and message) while a local list item, removed ones too, or a
   *  recipe ingredient uses the unit; nothing is written then. Resolves to the unit as it was. */
  async delete(unitId: string): Promise<UnitDoc> {
    const doc = await this.family(unitId);
    for (const name of ['items', 'ingredients'] as const) {
      if ((await this.findDocs(name, { familyUnitOfMeasureId: doc.id })).length > 0) {
        throw new FamilyClientError(CATALOG_REFUSALS.unitInUse.code, CATALOG_REFUSALS.unitInUse.message);
      }
    }
    return this.removeDoc(doc);
  }

  private async family(unitId: string) {
    const doc = await this.findDoc('units', String(unitId).toLowerCase());
    if (!doc || doc.kind !== 'family') throw notFound('Unit');
    return doc;
  }

  private async assertAbbreviationFree(abbreviation: string, exceptId?: string): Promise<void> {
    const lower = abbreviation.toLowerCase();
    const all = await this.collection('units').find().exec();
    if (all.some((u) => u.id !== exceptId && u.abbreviation.toLowerCase() === lower)) {
      throw invalidField('abbreviation', CATALOG_REFUSALS.abbreviationTaken.message);
    }
  }
}
