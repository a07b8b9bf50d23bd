/**
 * `client.items`: the items of a shopping list, offline, with the rules of
 * `/api/lists/{id}/items…`: unit and product pairs, item by product (no name: the product's
 * name), a section of the list's store, placement of a new item (§10: explicit, remembered, by
 * the product's category, none) with section memory (remembered when an item is placed
 * explicitly), check toggle with `checkedAt`, soft removal with `removedAt`/`removedByUserId`,
 * restore, and restore of many at once.
 */
import {
  ACTIVE,
  checkEdit,
  completePairs,
  itemAddInput,
  itemUpdateInput,
  patchedProduct,
  remembersPlacement,
  removal,
  restoreItemsInput,
  sectionEdit,
  type ItemAddInput,
  type ItemUpdateInput,
} from '../protocol/index.js';
import { DomainModule, invalidField, notFound, parseInput, plain, requireUser, type ItemDoc } from './context.js';
import {
  assertSection,
  checkRefs,
  placeNewItem,
  quantityFieldsForAdd,
  recallSection,
  rememberSection,
} from './refs.js';

/** Options of an add made by another domain call (copy-to-list). */
export interface AddOptions {
  createdAt?: string;
  prefix?: string;
}

export class Items extends DomainModule {
  /** Adds an item, placed as REST places it (§10): an explicit `sectionId` (remembered for the
   *  product), else the section the list's store remembers for the product, else the store's
   *  first section in walking order of the product's category (not remembered), else none.
   *  A known `id` returns that item unchanged. */
  async add(listId: string, input: ItemAddInput, options: AddOptions = {}): Promise<ItemDoc> {
    const v = parseInput(itemAddInput, input, options.prefix);
    const list = await this.list(listId);
    const existing = await this.existingDoc('items', v.id);
    if (existing) return existing;
    const fields = await quantityFieldsForAdd(this.ctx, v, options.prefix);
    const product = { productId: fields.productId, familyProductId: fields.familyProductId };
    if (v.sectionId) await assertSection(this.ctx, list.storeId, v.sectionId, options.prefix);
    const placement = await placeNewItem(this.ctx, list.storeId, product, v.sectionId ?? null);
    if (remembersPlacement(placement, list.storeId, product)) {
      await rememberSection(this.ctx, list.storeId, product, placement.sectionId);
    }
    return this.insertDoc('items', {
      id: v.id,
      listId: list.id,
      ...fields,
      sectionId: placement.sectionId,
      checked: false,
      checkedAt: null,
      removedAt: null,
      removedByUserId: null,
      createdAt: options.createdAt,
    });
  }

  /**
   * Edits an active item. Setting one id of a unit or product pair while not sending the other
   * clears the other. `sectionId` must be a section of the list's store and is remembered for
   * the item's product; a product linked to an item without a section takes the remembered
   * one, linked to an item in a section it is remembered there. `checked` sets or clears `checkedAt`.
   */
  async update(listId: string, itemId: string, patch: ItemUpdateInput): Promise<ItemDoc> {
    // Setting one id of a pair (and not sending the other) clears the other.
    const p = completePairs(parseInput(itemUpdateInput, patch));
    const list = await this.list(listId);
    const doc = await this.item(list.id, itemId, false);
    await checkRefs(this.ctx, p);
    const product = patchedProduct(doc, p);
    const productChanged = product.productId !== doc.productId || product.familyProductId !== doc.familyProductId;

    if (p.sectionId) await assertSection(this.ctx, list.storeId, p.sectionId);
    const edit = sectionEdit({
      storeId: list.storeId,
      current: doc.sectionId,
      sectionId: p.sectionId,
      product,
      productChanged,
    });
    const section = edit.recall ? await recallSection(this.ctx, list.storeId, product) : edit.section;
    if (edit.remember) await rememberSection(this.ctx, list.storeId, product, edit.remember);
    const checked = checkEdit(doc.checked, p.checked, () => this.ctx.now());
    return this.patchDoc(doc, {
      name: p.name,
      quantity: p.quantity,
      unitOfMeasureId: p.unitOfMeasureId,
      familyUnitOfMeasureId: p.familyUnitOfMeasureId,
      isApproximate: p.isApproximate,
      quantityNote: p.quantityNote,
      productId: p.productId,
      familyProductId: p.familyProductId,
      sectionId: section,
      ...(checked ?? {}),
    });
  }

  /** Flips `checked` of an active item. */
  async toggle(listId: string, itemId: string): Promise<ItemDoc> {
    const list = await this.list(listId);
    const doc = await this.item(list.id, itemId, false);
    return this.update(list.id, doc.id, { checked: !doc.checked });
  }

  /** Soft removal: `removedAt` and `removedByUserId` set; an already removed item is unchanged. */
  async remove(listId: string, itemId: string): Promise<ItemDoc> {
    const list = await this.list(listId);
    const doc = await this.item(list.id, itemId, true);
    if (doc.removedAt != null) return plain(doc);
    const user = requireUser(this.ctx);
    return this.patchDoc(doc, removal(doc.removedAt, user.userId, this.ctx.now())!);
  }

  /** Undo of a removal; an active item is unchanged. */
  async restore(listId: string, itemId: string): Promise<ItemDoc> {
    const list = await this.list(listId);
    const doc = await this.item(list.id, itemId, true);
    return this.patchDoc(doc, { ...ACTIVE });
  }

  /**
   * `POST /api/lists/{id}/restore-items`: the named items of the list (1–500 ids, removed or
   * not) active again; already active ones stay unchanged. An id that is not an item of this
   * list is `validation_failed` (`itemIds.{i}`) and nothing is restored. Resolves to the named
   * items (each once, in the order named).
   */
  async restoreMany(listId: string, itemIds: string[]): Promise<ItemDoc[]> {
    const v = parseInput(restoreItemsInput, { itemIds });
    const list = await this.list(listId);
    const ids = v.itemIds.map((id) => id.toLowerCase());
    const docs = new Map((await this.findDocs('items', { id: { $in: ids } })).map((d) => [d.id, d]));
    const unknown = ids.findIndex((id) => docs.get(id)?.listId !== list.id);
    if (unknown >= 0) throw invalidField(`itemIds.${unknown}`, 'not an item of this list');
    const out: ItemDoc[] = [];
    for (const id of new Set(ids)) {
      out.push(await this.patchDoc(docs.get(id)!, { ...ACTIVE }));
    }
    return out;
  }

  private list(listId: string) {
    return this.liveDoc('lists', listId, 'List');
  }

  private async item(listId: string, itemId: string, allowRemoved: boolean) {
    const doc = await this.findDoc('items', String(itemId).toLowerCase());
    if (!doc || doc.listId !== listId || (!allowRemoved && doc.removedAt != null)) throw notFound('Item');
    return doc;
  }
}
