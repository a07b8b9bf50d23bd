/**
 * What every domain module shares: the local database, who is signed in, the clock, input
 * validation with the protocol's rules and the helpers that read and write plain docs.
 */
import type { RxCollection, RxDocument } from 'rxdb';
import type * as z from 'zod/mini';
import type { FamilyDatabase } from '../database.js';
import { FamilyClientError, type ProblemFieldError } from '../errors.js';
import { newId } from '../ids.js';
import { fieldErrors, type CollectionName, type DocData, type Locale } from '../protocol/index.js';

/** The docs the domain modules read and write, as the protocol defines them. */
export type ProductDoc = DocData<'products'>;
export type UnitDoc = DocData<'units'>;
export type ItemDoc = DocData<'items'>;
export type ListDoc = DocData<'lists'>;
export type RecipeDoc = DocData<'recipes'>;
export type IngredientDoc = DocData<'ingredients'>;
export type StoreDoc = DocData<'stores'>;
export type SectionDoc = DocData<'sections'>;

export interface DomainSession {
  userId: string;
  role: 'admin' | 'member';
  /** The family's language as of the session's last refresh: it names a new store's default
   *  sections, as the server names them (api-contract §12). Absent: English. */
  familyLocale?: Locale;
}

export interface DomainContext {
  readonly db: FamilyDatabase;
  /** The signed-in user (removal bookkeeping, admin-only calls); null when signed out. */
  session(): DomainSession | null;
  /** Now, as the ISO string local writes are stamped with (the server stamps its own). */
  now(): string;
  /** An authenticated REST call, for the few domain calls that need the server (they say so). */
  rest?<T = unknown>(method: 'DELETE' | 'GET', path: string): Promise<T>;
}

/** A new record id (a lowercase UUID, made in any page, secure context or not). */
export { newId };

/** Parses an input with a protocol schema; a refused one is `validation_failed` before anything is written. */
export function parseInput<T extends z.ZodMiniType>(schema: T, value: unknown, prefix?: string): z.output<T> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  throw invalid(fieldErrors(r.error, prefix));
}

export function invalid(errors: ProblemFieldError[]): FamilyClientError {
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new FamilyClientError('validation_failed', `invalid input: ${detail}`, { errors });
}

export const invalidField = (path: string, message: string) => invalid([{ path, message }]);

export function notFound(what: string): FamilyClientError {
  return new FamilyClientError('not_found', `${what} not found`);
}

export function requireAdmin(ctx: DomainContext): void {
  if (ctx.session()?.role !== 'admin') {
    throw new FamilyClientError('forbidden', 'Only a family admin can change store sections');
  }
}

export function requireUser(ctx: DomainContext): DomainSession {
  const s = ctx.session();
  if (!s) throw new FamilyClientError('forbidden', 'not signed in');
  return s;
}

type AnyCollection = RxCollection<any>;

export function collection<C extends CollectionName>(ctx: DomainContext, name: C): RxCollection<DocData<C>> {
  return (ctx.db as unknown as Record<string, AnyCollection>)[name] as RxCollection<DocData<C>>;
}

/** The plain doc (the replication doc without `_deleted` and RxDB's meta fields). */
export function plain<T>(doc: RxDocument<T>): T {
  const { _deleted, _rev, _meta, _attachments, ...data } = doc.toJSON() as Record<string, unknown>;
  void _deleted;
  void _rev;
  void _meta;
  void _attachments;
  return data as T;
}

/** The live doc with this id, or null. */
export async function findDoc<C extends CollectionName>(
  ctx: DomainContext,
  name: C,
  id: string | null | undefined,
): Promise<RxDocument<DocData<C>> | null> {
  if (!id) return null;
  return (await collection(ctx, name).findOne(id).exec()) as RxDocument<DocData<C>> | null;
}

export async function findDocs<C extends CollectionName>(
  ctx: DomainContext,
  name: C,
  selector: Record<string, unknown>,
): Promise<RxDocument<DocData<C>>[]> {
  return (await collection(ctx, name)
    .find({ selector } as never)
    .exec()) as RxDocument<DocData<C>>[];
}

/** Applies a change to a doc (stamping `updatedAt`) unless it changes nothing; the doc after. */
export async function patchDoc<T>(ctx: DomainContext, doc: RxDocument<T>, change: Partial<T>): Promise<T> {
  const current = doc.toJSON() as Record<string, unknown>;
  const effective = Object.fromEntries(
    Object.entries(change).filter(([k, v]) => v !== undefined && JSON.stringify(current[k]) !== JSON.stringify(v)),
  );
  if (Object.keys(effective).length === 0) return plain(doc);
  const stamp = 'updatedAt' in current ? { updatedAt: ctx.now() } : {};
  return plain((await doc.incrementalPatch({ ...effective, ...stamp } as never)) as RxDocument<T>);
}

/** The live doc a path id names (any letter case), or `not_found` for `what`. */
export async function liveDoc<C extends CollectionName>(
  ctx: DomainContext,
  name: C,
  id: string,
  what: string,
): Promise<RxDocument<DocData<C>>> {
  const doc = await findDoc(ctx, name, String(id).toLowerCase());
  if (!doc) throw notFound(what);
  return doc;
}

/** What a create fills in itself: the id when the caller chose none, and both timestamps (now). */
type Stamped = 'id' | 'createdAt' | 'updatedAt';
export type NewDoc<C extends CollectionName> = Omit<DocData<C>, Stamped> & { id?: string; createdAt?: string };

/** Inserts a new doc: `id` (a new one unless given) first, `createdAt` (unless given) and
 *  `updatedAt` stamped now, last; the plain doc written. */
export async function insertDoc<C extends CollectionName>(
  ctx: DomainContext,
  name: C,
  fields: NewDoc<C>,
): Promise<DocData<C>> {
  const now = ctx.now();
  const { id, createdAt, updatedAt, ...rest } = fields as Record<string, unknown>;
  void updatedAt;
  const doc = { id: id ?? newId(), ...rest, createdAt: createdAt ?? now, updatedAt: now } as DocData<C>;
  return plain(await collection(ctx, name).insert(doc as never)) as DocData<C>;
}

/**
 * The base of every domain module (`client.lists`, `client.items`, …): the context it works in,
 * and the doc helpers above bound to it.
 */
export abstract class DomainModule {
  constructor(protected readonly ctx: DomainContext) {}

  protected collection<C extends CollectionName>(name: C): RxCollection<DocData<C>> {
    return collection(this.ctx, name);
  }

  protected findDoc<C extends CollectionName>(name: C, id: string | null | undefined) {
    return findDoc(this.ctx, name, id);
  }

  protected findDocs<C extends CollectionName>(name: C, selector: Record<string, unknown>) {
    return findDocs(this.ctx, name, selector);
  }

  protected liveDoc<C extends CollectionName>(name: C, id: string, what: string) {
    return liveDoc(this.ctx, name, id, what);
  }

  protected patchDoc<T>(doc: RxDocument<T>, change: Partial<T>): Promise<T> {
    return patchDoc(this.ctx, doc, change);
  }

  protected insertDoc<C extends CollectionName>(name: C, fields: NewDoc<C>): Promise<DocData<C>> {
    return insertDoc(this.ctx, name, fields);
  }

  /** Removes every doc of the collection the selector matches. */
  protected async removeDocs<C extends CollectionName>(name: C, selector: Record<string, unknown>): Promise<void> {
    for (const doc of await this.findDocs(name, selector)) await doc.remove();
  }

  /** Deletes a doc, once `first` has dealt with what goes with it (docs removed, links cleared);
   *  resolves to the doc as it was. */
  protected async removeDoc<T>(doc: RxDocument<T>, first?: () => Promise<void>): Promise<T> {
    const before = plain(doc);
    await first?.();
    await doc.remove();
    return before;
  }

  /** A create with a client-chosen id that is already known: that doc, plain (the create is a
   *  re-send and changes nothing); null otherwise. */
  protected async existingDoc<C extends CollectionName>(name: C, id: string | undefined): Promise<DocData<C> | null> {
    const doc = id ? await findDoc(this.ctx, name, id) : null;
    return doc ? plain(doc) : null;
  }
}
