/**
 * `client.stores` and `client.sections`: stores with their sections in walking order, offline,
 * with the rules of `/api/stores…`: store names unique in the family (case-insensitive), the
 * default sections of a new store (same names, in the family's language, order, ids and
 * categories as the server's),
 * section changes for admins only.
 */
import {
  DEFAULT_LOCALE,
  DEFAULT_SECTION_CATEGORIES,
  compareSections,
  defaultSectionId,
  defaultSectionNames,
  sectionAddInput,
  sectionOrderInput,
  sectionUpdateInput,
  storeCreateInput,
  storeUpdateInput,
  type SectionAddInput,
  type SectionOrderInput,
  type SectionUpdateInput,
  type StoreCreateInput,
  type StoreUpdateInput,
} from '../protocol/index.js';
import {
  DomainModule,
  invalidField,
  newId,
  notFound,
  parseInput,
  plain,
  requireAdmin,
  type StoreDoc,
  type SectionDoc,
} from './context.js';

/** What `client.stores` and `client.sections` both read and write. */
abstract class StoreModule extends DomainModule {
  protected liveStore(storeId: string) {
    return this.liveDoc('stores', storeId, 'Store');
  }

  protected async storeSections(storeId: string) {
    return (await this.findDocs('sections', { storeId })).sort((a, b) => compareSections(plain(a), plain(b)));
  }

  /** Items (removed ones too) in these sections lose their section. */
  protected async clearItemSections(sectionIds: string[]): Promise<void> {
    if (sectionIds.length === 0) return;
    for (const item of await this.findDocs('items', { sectionId: { $in: sectionIds } })) {
      await this.patchDoc(item, { sectionId: null });
    }
  }
}

export class Stores extends StoreModule {
  /** Any member. The store and its default sections (with their categories) appear locally at once. */
  async create(input: StoreCreateInput): Promise<StoreDoc> {
    const v = parseInput(storeCreateInput, input);
    const existing = await this.existingDoc('stores', v.id);
    if (existing) return existing;
    await this.assertNameFree(v.name);
    const now = this.ctx.now();
    const store: StoreDoc = { id: v.id ?? newId(), name: v.name, createdAt: now, updatedAt: now };
    const written = plain(await this.collection('stores').insert(store));
    // Named in the family's language, as the server names the rows these ids become.
    const names = defaultSectionNames(this.ctx.session()?.familyLocale ?? DEFAULT_LOCALE);
    await this.collection('sections').bulkUpsert(
      names.map((name, position) => ({
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
    const doc = await this.liveStore(storeId);
    if (v.name !== doc.name) await this.assertNameFree(v.name, doc.id);
    return this.patchDoc(doc, { name: v.name });
  }

  /** Deletes the store: its lists lose their store and the items in its sections their section.
   *  (Its sections and section memory go with it on the server; they leave the local database
   *  with the next pull.) Resolves to the store as it was. */
  async delete(storeId: string): Promise<StoreDoc> {
    const doc = await this.liveStore(storeId);
    return this.removeDoc(doc, async () => {
      const sections = await this.findDocs('sections', { storeId: doc.id });
      await this.clearItemSections(sections.map((s) => s.id));
      for (const list of await this.findDocs('lists', { storeId: doc.id }))
        await this.patchDoc(list, { storeId: null });
      await this.removeDocs('sectionMemory', { storeId: doc.id });
    });
  }

  private async assertNameFree(name: string, exceptId?: string): Promise<void> {
    const lower = name.toLowerCase();
    const all = await this.collection('stores').find().exec();
    if (all.some((s) => s.id !== exceptId && s.name.toLowerCase() === lower)) {
      throw invalidField('name', 'a store with that name already exists');
    }
  }
}

export class Sections extends StoreModule {
  /** Admin. Appends the section, or inserts it at `position` (later sections move down one);
   *  `category` null unless given. */
  async add(storeId: string, input: SectionAddInput): Promise<SectionDoc> {
    const v = parseInput(sectionAddInput, input);
    requireAdmin(this.ctx);
    const store = await this.liveStore(storeId);
    const existing = await this.existingDoc('sections', v.id);
    if (existing) return existing;
    const sections = await this.storeSections(store.id);
    const end = sections.length === 0 ? 0 : Math.max(...sections.map((s) => s.position)) + 1;
    let position = end;
    if (v.position !== undefined && v.position < end) {
      position = v.position;
      for (const s of sections) if (s.position >= position) await this.patchDoc(s, { position: s.position + 1 });
    }
    return this.insertDoc('sections', {
      id: v.id,
      storeId: store.id,
      name: v.name,
      position,
      category: v.category ?? null,
    });
  }

  /** Admin. `PATCH …/sections/{id}`: REST's body `{ name?, category? }` (at least one). */
  async update(storeId: string, sectionId: string, patch: SectionUpdateInput): Promise<SectionDoc> {
    const v = parseInput(sectionUpdateInput, patch);
    requireAdmin(this.ctx);
    const doc = await this.section(storeId, sectionId);
    return this.patchDoc(doc, { name: v.name, category: v.category });
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
    const store = await this.liveStore(storeId);
    const sections = await this.storeSections(store.id);
    const current = new Set(sections.map((s) => s.id));
    const wanted = v.sectionIds;
    const same =
      wanted.length === current.size && new Set(wanted).size === wanted.length && wanted.every((id) => current.has(id));
    if (!same) throw invalidField('sectionIds', "must list exactly the store's section ids, each once");
    const byId = new Map(sections.map((s) => [s.id, s]));
    for (const [position, id] of wanted.entries()) await this.patchDoc(byId.get(id)!, { position });
    return (await this.storeSections(store.id)).map((s) => plain(s));
  }

  /** Admin. Items in the section (removed ones too) survive with `sectionId` null; the stores
   *  forget it as a remembered section. Resolves to the section as it was. */
  async delete(storeId: string, sectionId: string): Promise<SectionDoc> {
    requireAdmin(this.ctx);
    const doc = await this.section(storeId, sectionId);
    return this.removeDoc(doc, async () => {
      await this.clearItemSections([doc.id]);
      await this.removeDocs('sectionMemory', { sectionId: doc.id });
    });
  }

  private async section(storeId: string, sectionId: string) {
    const store = await this.liveStore(storeId);
    const doc = await this.findDoc('sections', String(sectionId).toLowerCase());
    if (!doc || doc.storeId !== store.id) throw notFound('Section');
    return doc;
  }
}
