// The list details last built, each with the family version it was built at. A read passes that
// version to its statement, which checks the caller's membership and builds the detail again
// only when the family has moved on since (any write of the family moves its version, and the
// version triggers refuse a write that does not): an unchanged list costs the membership check
// and no JSON. Nothing here decides who may read: the membership is checked on every request,
// in the same statement, so a removed member is refused at once.
import type { CachedDetail, DetailCopies } from '../context.js';

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
