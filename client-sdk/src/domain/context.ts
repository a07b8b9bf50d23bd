/**
 * What every domain module shares: the local database, who is signed in, the clock, input
 * validation with the protocol's rules and the helpers that read and write plain docs.
 */
import type { RxCollection, RxDocument } from 'rxdb';
import type * as z from 'zod/mini';
import type { FamilyDatabase } from '../database.js';
import { FamilyClientError, type ProblemFieldError } from '../errors.js';
import { fieldErrors, type CollectionName, type DocData } from '../protocol/index.js';

export interface DomainSession {
  userId: string;
  role: 'admin' | 'member';
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
export { newId } from '../ids.js';

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
