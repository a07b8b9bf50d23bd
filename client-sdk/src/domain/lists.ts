/**
 * `client.lists`: shopping lists, offline. Same rules as `POST/PATCH/DELETE /api/lists…`; the
 * views are the protocol's `listSummaries` / `listDetail`, the functions the server's REST
 * presenter uses; suggestions are the protocol's `buildSuggestions`, as the server's.
 */
import { combineLatest, distinctUntilChanged, map, of, switchMap, type Observable } from 'rxjs';
import type { RxDocument } from 'rxdb';
import {
  SUGGESTIONS_LIMIT_DEFAULT,
  SUGGESTIONS_LIMIT_MAX,
  buildSuggestions,
  isActiveItem,
  listCreateInput,
  listDetail,
  listSummaries,
  listUpdateInput,
  type ListCreateInput,
  type ListDetail,
  type ListSummary,
  type ListUpdateInput,
  type Suggestion,
} from '../protocol/index.js';
import { DomainModule, invalidField, parseInput, plain, requireUser, type ListDoc, type ItemDoc } from './context.js';
import { recallSection } from './refs.js';

const plainAll = <T>(docs: { toJSON(): unknown }[]) => docs.map((d) => plain(d as never)) as T[];
/** The active items of a query's result, as plain records. The views count and show only those
 *  (`listSummaries`, `listDetail`), and removed items are most of a family's items after a
 *  while (history): they are left out before their copy is made, not after. The query itself
 *  still reads every item (no `removedAt` selector), so its results are those of every other
 *  read of the items. */
const plainActive = (docs: RxDocument<ItemDoc>[]) => plainAll<ItemDoc>(docs.filter((d) => isActiveItem(d)));

export class Lists extends DomainModule {
  /** Creates a list (`storeId` must be a store of the family). A known `id` returns that list unchanged. */
  async create(input: ListCreateInput): Promise<ListDoc> {
    const v = parseInput(listCreateInput, input);
    const existing = await this.existingDoc('lists', v.id);
    if (existing) return existing;
    const storeId = v.storeId ?? null;
    if (storeId && !(await this.findDoc('stores', storeId))) throw invalidField('storeId', 'unknown store');
    return this.insertDoc('lists', { id: v.id, name: v.name, storeId, archivedAt: null });
  }

  /** Renames and/or changes the store (null unlinks). A new store re-sections every item of the
   *  list (removed ones too) by that store's section memory, or none. */
  async update(listId: string, patch: ListUpdateInput): Promise<ListDoc> {
    const v = parseInput(listUpdateInput, patch);
    const doc = await this.live(listId);
    const storeChanged = v.storeId !== undefined && v.storeId !== doc.storeId;
    if (storeChanged && v.storeId && !(await this.findDoc('stores', v.storeId)))
      throw invalidField('storeId', 'unknown store');
    const result = await this.patchDoc(doc, {
      name: v.name,
      storeId: storeChanged ? (v.storeId ?? null) : undefined,
    });
    if (storeChanged) {
      for (const item of await this.findDocs('items', { listId: doc.id })) {
        const next = await recallSection(this.ctx, result.storeId, item);
        if (next !== item.sectionId) await this.patchDoc(item, { sectionId: next });
      }
    }
    return result;
  }

  /** Sets `archivedAt` (an archived list stays as it is). */
  async archive(listId: string): Promise<ListDoc> {
    const doc = await this.live(listId);
    if (doc.archivedAt != null) return plain(doc);
    return this.patchDoc(doc, { archivedAt: this.ctx.now() });
  }

  /** Clears `archivedAt`. */
  async unarchive(listId: string): Promise<ListDoc> {
    const doc = await this.live(listId);
    return this.patchDoc(doc, { archivedAt: null });
  }

  /** Deletes the list and its items; resolves to the list as it was. */
  async delete(listId: string): Promise<ListDoc> {
    const doc = await this.live(listId);
    return this.removeDoc(doc, () => this.removeDocs('items', { listId: doc.id }));
  }

  /** `GET /api/lists?archived=`: the active (or archived) lists with counts of their active
   *  items, newest first; emits again on every local change. */
  summaries$(options: { archived?: boolean } = {}): Observable<ListSummary[]> {
    const archived = options.archived ?? false;
    return combineLatest([this.collection('lists').find().$, this.collection('items').find().$]).pipe(
      map(([lists, items]) => listSummaries(plainAll(lists), plainActive(items), { archived })),
    );
  }

  /** `GET /api/lists/{id}`: the list with its active items grouped by section in walking
   *  order; null while the list is not in the local database. */
  detail$(listId: string): Observable<ListDetail | null> {
    const id = listId.toLowerCase();
    const list$ = this.collection('lists')
      .findOne(id)
      .$.pipe(map((d) => (d ? plain(d) : null)));
    const items$ = this.collection('items').find({ selector: { listId: id } } as never).$;
    return list$.pipe(
      distinctUntilChanged((a, b) => JSON.stringify(a) === JSON.stringify(b)),
      switchMap((list) => {
        if (!list) return of(null);
        const sections$ = list.storeId
          ? this.collection('sections').find({ selector: { storeId: list.storeId } } as never).$
          : of([]);
        return combineLatest([items$, sections$]).pipe(
          map(([items, sections]) => listDetail(list, plainAll(sections), plainActive(items))),
        );
      }),
    );
  }

  /**
   * `POST /api/lists/{id}/clear-checked` ("done shopping"): every active checked item of the
   * list removed, as single removals remove them (`removedAt`, `removedByUserId`). Resolves to
   * those items (none: `[]`); `client.items.restoreMany` undoes it.
   */
  async clearChecked(listId: string): Promise<ItemDoc[]> {
    const doc = await this.live(listId);
    const user = requireUser(this.ctx);
    const checked = (await this.findDocs('items', { listId: doc.id }))
      .filter((i) => i.checked && i.removedAt == null)
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const now = this.ctx.now();
    const out: ItemDoc[] = [];
    for (const item of checked) out.push(await this.patchDoc(item, { removedAt: now, removedByUserId: user.userId }));
    return out;
  }

  /**
   * `GET /api/lists/{id}/suggestions?limit=` (default 20, at most 50), computed from the local
   * items (offline): what the family added in the last 180 days and is not on this list now,
   * most often and most recently added first. Emits again on every change of the items; `[]`
   * while the list is not in the local database.
   */
  suggestions$(listId: string, options: { limit?: number } = {}): Observable<Suggestion[]> {
    const limit = options.limit ?? SUGGESTIONS_LIMIT_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > SUGGESTIONS_LIMIT_MAX) {
      throw invalidField('limit', `must be an integer from 1 to ${SUGGESTIONS_LIMIT_MAX}`);
    }
    const id = String(listId).toLowerCase();
    return combineLatest([this.collection('lists').findOne(id).$, this.collection('items').find().$]).pipe(
      map(([list, items]) => (list ? buildSuggestions(plainAll<ItemDoc>(items), list.id, this.ctx.now(), limit) : [])),
    );
  }

  private live(listId: string) {
    return this.liveDoc('lists', listId, 'List');
  }
}
