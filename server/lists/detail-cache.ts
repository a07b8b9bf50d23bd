// The list details last built, each with the family version it was built at, as a layer around
// the one function that reads a detail (`cached(copies, membershipOf, detailOf)`). A read finds
// the copy of its family's list (the family id is part of every key), reads the caller's
// membership with the family's version, and builds the detail again only when the family has
// moved on since (any write of the family moves its version, and the version triggers refuse a
// write that does not): an unchanged list costs the membership read and no JSON. Nothing here
// decides who may read: the layer hands back the membership it read, as the detail does, and the
// route layer judges it on every request (server/http/route.ts `memberRead`), so a removed
// member is refused at once.
import type { CachedDetail, DetailCopies } from '../context.js';
import type { MembershipVersion } from '../auth/public.js';

/** Whose detail is read: the user and family a verified token names. */
export interface DetailReader {
  userId: string;
  familyId: string;
}

/** A list detail as JSON bytes (null: the family has no such live list) with the membership
 *  the reader's token names, read with it (undefined: none). */
export interface DetailRead {
  membership: MembershipVersion | undefined;
  body: Buffer | null;
}

export type DetailOf = (who: DetailReader, listId: string) => Promise<DetailRead>;

/** `detailOf` answered from `copies` while the family is at the version a copy was built at. */
export function cached(
  copies: DetailCopies,
  membershipOf: (who: DetailReader) => Promise<MembershipVersion | undefined>,
  detailOf: DetailOf,
): DetailOf {
  return async (who, listId) => {
    const key = `${who.familyId}/${listId}`;
    const copy = copies.get(key);
    if (copy) {
      const membership = await membershipOf(who);
      if (!membership) return { membership, body: null };
      if (membership.version === copy.version) return { membership, body: copy.body };
    }
    const read = await detailOf(who, listId);
    const version = read.membership?.version;
    if (version == null) return read;
    if (read.body === null) copies.delete(key);
    else copies.set(key, version, read.body);
    return read;
  };
}

/** Least recently used first out, bounded by the total size of the bodies. */
export class DetailCache implements DetailCopies {
  private readonly entries = new Map<string, CachedDetail>();
  private size = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): CachedDetail | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, version: string, body: Buffer): void {
    this.delete(key);
    if (body.length > this.maxBytes) return;
    this.entries.set(key, { version, body });
    this.size += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.size -= entry.body.length;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= entry.body.length;
  }
}
