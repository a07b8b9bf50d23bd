/**
 * The lists whose live group the client is in: the ones this tab joined (`joinList`) and, on
 * the replicating tab, the ones other tabs asked for (list → their tab ids). The live channel
 * joins all of them again on every (re)connect.
 */
export class ListJoins {
  private readonly own = new Set<string>();
  private readonly remote = new Map<string, Set<string>>();

  /** This tab joins `listId`; false when it had already. */
  joinOwn(listId: string): boolean {
    if (this.own.has(listId)) return false;
    this.own.add(listId);
    return true;
  }

  /** This tab leaves `listId`; false when it had not joined it. */
  leaveOwn(listId: string): boolean {
    return this.own.delete(listId);
  }

  /** The lists this tab joined (re-sent to a new replicating tab). */
  ownLists(): Iterable<string> {
    return this.own;
  }

  joinFor(tab: string, listId: string): void {
    const tabs = this.remote.get(listId) ?? new Set<string>();
    tabs.add(tab);
    this.remote.set(listId, tabs);
  }

  /** Another tab leaves `listId`; true when it was the last other tab in it. */
  leaveFor(tab: string, listId: string): boolean {
    const tabs = this.remote.get(listId);
    tabs?.delete(tab);
    if (!tabs || tabs.size > 0) return false;
    this.remote.delete(listId);
    return true;
  }

  /** Someone here (this tab or another) still wants the list's frames. */
  held(listId: string): boolean {
    return this.own.has(listId) || this.remote.has(listId);
  }

  all(): Set<string> {
    return new Set([...this.own, ...this.remote.keys()]);
  }

  /** Not (or no longer) the family's list: stop asking for it. */
  forget(listId: string): void {
    this.own.delete(listId);
    this.remote.delete(listId);
  }

  /** This tab stopped replicating: the other tabs ask the next one. */
  clearOthers(): void {
    this.remote.clear();
  }
}
