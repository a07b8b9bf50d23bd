/**
 * `client.stores` and `client.sections`: stores with their sections in walking order, offline,
 * with the rules of `/api/stores…`: store names unique in the family (case-insensitive), the
 * default sections of a new store (same names, order, ids and categories as the server's),
 * section changes for admins only.
 */
import {
  DEFAULT_SECTIONS,
  DEFAULT_SECTION_CATEGORIES,
  compareSections,
  defaultSectionId,
  sectionAddInput,
  sectionOrderInput,
  sectionUpdateInput,
  storeCreateInput,
  storeUpdateInput,
  type DocData,
  type SectionAddInput,
  type SectionOrderInput,
  type SectionUpdateInput,
  type StoreCreateInput,
  type StoreUpdateInput,
} from '../protocol/index.js';
import {
  collection,
  findDoc,
  findDocs,
  invalidField,
  newId,
  notFound,
  parseInput,
  patchDoc,
  plain,
  requireAdmin,
  type DomainContext,
} from './context.js';

export type StoreDoc = DocData<'stores'>;
export type SectionDoc = DocData<'sections'>;

async function liveStore(ctx: DomainContext, storeId: string) {
  const doc = await findDoc(ctx, 'stores', String(storeId).toLowerCase());
  if (!doc) throw notFound('Store');
  return doc;
}

async function storeSections(ctx: DomainContext, storeId: string) {
  return (await findDocs(ctx, 'sections', { storeId })).sort((a, b) => compareSections(plain(a), plain(b)));
}

/** Items (removed ones too) in these sections lose their section. */
async function clearItemSections(ctx: DomainContext, sectionIds: string[]): Promise<void> {
  if (sectionIds.length === 0) return;
  for (const item of await findDocs(ctx, 'items', { sectionId: { $in: sectionIds } })) {
    await patchDoc(ctx, item, { sectionId: null });
  }
}

export class Stores {
  constructor(private readonly ctx: DomainContext) {}

  /** Any member. The store and its default sections (with their categories) appear locally at once. */
  async create(input: StoreCreateInput): Promise<StoreDoc> {
    const v = parseInput(storeCreateInput, input);
    if (v.id) {
      const existing = await findDoc(this.ctx, 'stores', v.id);
      if (existing) return plain(existing);
    }
    await this.assertNameFree(v.name);
    const now = this.ctx.now();
    const store: StoreDoc = { id: v.id ?? newId(), name: v.name, createdAt: now, updatedAt: now };
    const written = plain(await collection(this.ctx, 'stores').insert(store));
    await collection(this.ctx, 'sections').bulkUpsert(
      DEFAULT_SECTIONS.map((name, position) => ({
        id: defaultSectionId(store.id, position),
        storeId: store.id,
        name,
        position,
        category: DEFAULT_SECTION_CATEGORIES[position] ?? null,
        createdAt: now,
        updatedAt: now,
      })),
    );
    return written;
  }

  async update(storeId: string, patch: StoreUpdateInput): Promise<StoreDoc> {
    const v = parseInput(storeUpdateInput, patch);
    const doc = await liveStore(this.ctx, storeId);
    if (v.name !== doc.name) await this.assertNameFree(v.name, doc.id);
    return patchDoc(this.ctx, doc, { name: v.name });
  }

  /** Deletes the store: its lists lose their store and the items in its sections their section.
   *  (Its sections and section memory go with it on the server; they leave the local database
   *  with the next pull.) Resolves to the store as it was. */
  async delete(storeId: string): Promise<StoreDoc> {
    const doc = await liveStore(this.ctx, storeId);
    const before = plain(doc);
    const sections = await findDocs(this.ctx, 'sections', { storeId: doc.id });
    await clearItemSections(
      this.ctx,
      sections.map((s) => s.id),
    );
    for (const list of await findDocs(this.ctx, 'lists', { storeId: doc.id }))
      await patchDoc(this.ctx, list, { storeId: null });
    for (const m of await findDocs(this.ctx, 'sectionMemory', { storeId: doc.id })) await m.remove();
    await doc.remove();
    return before;
  }

  private async assertNameFree(name: string, exceptId?: string): Promise<void> {
    const lower = name.toLowerCase();
    const all = await collection(this.ctx, 'stores').find().exec();
    if (all.some((s) => s.id !== exceptId && s.name.toLowerCase() === lower)) {
      throw invalidField('name', 'a store with that name already exists');
    }
  }
}

export class Sections {
  constructor(private readonly ctx: DomainContext) {}

  /** Admin. Appends the section, or inserts it at `position` (later sections move down one);
   *  `category` null unless given. */
  async add(storeId: string, input: SectionAddInput): Promise<SectionDoc> {
    const v = parseInput(sectionAddInput, input);
    requireAdmin(this.ctx);
    const store = await liveStore(this.ctx, storeId);
    if (v.id) {
      const existing = await findDoc(this.ctx, 'sections', v.id);
      if (existing) return plain(existing);
    }
    const sections = await storeSections(this.ctx, store.id);
    const end = sections.length === 0 ? 0 : Math.max(...sections.map((s) => s.position)) + 1;
    let position = end;
    if (v.position !== undefined && v.position < end) {
      position = v.position;
      for (const s of sections) if (s.position >= position) await patchDoc(this.ctx, s, { position: s.position + 1 });
    }
    const now = this.ctx.now();
    const doc: SectionDoc = {
      id: v.id ?? newId(),
      storeId: store.id,
      name: v.name,
      position,
      category: v.category ?? null,
      createdAt: now,
      updatedAt: now,
    };
    return plain(await collection(this.ctx, 'sections').insert(doc));
  }

  /** Admin. `PATCH …/sections/{id}`: REST's body `{ name?, category? }` (at least one). */
  async update(storeId: string, sectionId: string, patch: SectionUpdateInput): Promise<SectionDoc> {
    const v = parseInput(sectionUpdateInput, patch);
    requireAdmin(this.ctx);
    const doc = await this.section(storeId, sectionId);
    return patchDoc(this.ctx, doc, { name: v.name, category: v.category });
  }

  /** Admin. `update` with the new name itself, or REST's body. */
  async rename(storeId: string, sectionId: string, patch: SectionUpdateInput | string): Promise<SectionDoc> {
    return this.update(storeId, sectionId, typeof patch === 'string' ? { name: patch } : patch);
  }

  /** Admin. `order`: the section ids, or REST's body `{ sectionIds }`; they must be exactly the
   *  store's sections, and take positions 0..n-1 in that order. Resolves to the sections in the
   *  new order. */
  async reorder(storeId: string, order: string[] | SectionOrderInput): Promise<SectionDoc[]> {
    const v = parseInput(sectionOrderInput, Array.isArray(order) ? { sectionIds: order } : order);
    requireAdmin(this.ctx);
    const store = await liveStore(this.ctx, storeId);
    const sections = await storeSections(this.ctx, store.id);
    const current = new Set(sections.map((s) => s.id));
    const wanted = v.sectionIds;
    const same =
      wanted.length === current.size && new Set(wanted).size === wanted.length && wanted.every((id) => current.has(id));
    if (!same) throw invalidField('sectionIds', "must list exactly the store's section ids, each once");
    const byId = new Map(sections.map((s) => [s.id, s]));
    for (const [position, id] of wanted.entries()) await patchDoc(this.ctx, byId.get(id)!, { position });
    return (await storeSections(this.ctx, store.id)).map((s) => plain(s));
  }

  /** Admin. Items in the section (removed ones too) survive with `sectionId` null; the stores
   *  forget it as a remembered section. Resolves to the section as it was. */
  async delete(storeId: string, sectionId: string): Promise<SectionDoc> {
    requireAdmin(this.ctx);
    const doc = await this.section(storeId, sectionId);
    const before = plain(doc);
    await clearItemSections(this.ctx, [doc.id]);
    for (const m of await findDocs(this.ctx, 'sectionMemory', { sectionId: doc.id })) await m.remove();
    await doc.remove();
    return before;
  }

  private async section(storeId: string, sectionId: string) {
    const store = await liveStore(this.ctx, storeId);
    const doc = await findDoc(this.ctx, 'sections', String(sectionId).toLowerCase());
    if (!doc || doc.storeId !== store.id) throw notFound('Section');
    return doc;
  }
}
