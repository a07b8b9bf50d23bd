/**
 * A stand-in for the SDK's `pending$` (contract §8) while the SDK does not offer it: the
 * documents written on this device since the client was last in sync. While the client is
 * offline nothing is pulled, so every change event then is a local write; once the client is
 * idle (online, nothing to pull or push) everything has been sent.
 */
import type { FamilyClient } from '@family-shopping/client';
import { Observable } from 'rxjs';

export function derivedPending(c: FamilyClient): Observable<number> {
  return new Observable<number>((sub) => {
    const waiting = new Set<string>();
    let state = c.state;
    const emit = () => sub.next(waiting.size);
    const s1 = c.state$.subscribe((s) => {
      state = s;
      if (s === 'idle') {
        waiting.clear();
        emit();
      }
    });
    const s2 = c.db.$.subscribe((ev: { documentId: string; collectionName?: string }) => {
      if (state !== 'offline' && navigator.onLine) return;
      waiting.add(`${ev.collectionName ?? ''}/${ev.documentId}`);
      emit();
    });
    emit();
    return () => {
      s1.unsubscribe();
      s2.unsubscribe();
    };
  });
}
