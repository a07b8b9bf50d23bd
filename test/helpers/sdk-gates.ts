// Parts an SDK client is given (its storage, its fetch, its WebSocket) that hold chosen work until
// the test lets it go: a slow local database, a request still on the way, a frame a network
// delivers late. With them a test puts RxDB's downstream queue into one exact order through the
// SDK's public options alone (docs/sync.md "Live patches": a pull queued behind a write, a patch
// waiting for a push).
import WebSocket from 'ws';
import type { RxStorage, RxStorageInstance } from 'rxdb';
import type { FetchLike, WebSocketConstructor } from '@family-shopping/client';

/** A promise the test resolves (`open`). */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * `base` with the writes RxDB's downstream (pulled docs, live patches) makes into `collection`
 * held while `hold` is on, as a busy IndexedDB would hold them: `caught` counts the writes held,
 * `release()` lets them through and holds no more.
 */
export function slowStorage(base: RxStorage<any, any>, collection: string) {
  let held: ReturnType<typeof gate> | null = null;
  const state = {
    caught: 0,
    hold(): void {
      held ??= gate();
    },
    release(): void {
      held?.open();
      held = null;
    },
  };
  const storage: RxStorage<any, any> = {
    ...base,
    async createStorageInstance(params) {
      const instance: RxStorageInstance<any, any, any> = await base.createStorageInstance(params);
      if (params.collectionName !== collection) return instance;
      const bulkWrite = instance.bulkWrite.bind(instance);
      instance.bulkWrite = async (rows, context) => {
        const wait = held;
        if (wait && context.startsWith('replication-downstream-')) {
          state.caught++;
          await wait.promise;
        }
        return bulkWrite(rows, context);
      };
      return instance;
    },
  };
  return Object.assign(state, { storage });
}

/** `base` with the requests a rule picks held on the way (`hold`): each held request waits,
 *  unsent, until `release()`. */
export function heldFetch(base: FetchLike) {
  let rule: ((method: string, path: string) => boolean) | null = null;
  let held: ReturnType<typeof gate> | null = null;
  const state = {
    /** Requests held now. */
    waiting: 0,
    /** Hold the requests `matches` picks from now on (until `release`). */
    hold(matches: (method: string, path: string) => boolean): void {
      rule = matches;
      held ??= gate();
    },
    release(): void {
      rule = null;
      held?.open();
      held = null;
    },
  };
  const fetch: FetchLike = async (input, init) => {
    const method = init?.method ?? 'GET';
    const path = new URL(input).pathname;
    const wait = held;
    if (wait && rule?.(method, path)) {
      state.waiting++;
      await wait.promise;
      state.waiting--;
    }
    return base(input, init);
  };
  return Object.assign(state, { fetch });
}

/** The `ws` WebSocket whose incoming `Changed` frames are held while `holding` is on (a
 *  network that delivers them late, in order, on `release()`); `changed` lists every `Changed`
 *  frame delivered so far. */
export function heldFrames() {
  const waiting: (() => void)[] = [];
  const state = { holding: false, changed: [] as any[] };
  // `ws` hands every incoming frame to `emit('message', data, isBinary)`, which reaches the
  // `onmessage` the SDK set: a frame held here reaches it later.
  class HeldSocket extends WebSocket {
    override emit(event: string | symbol, ...args: any[]): boolean {
      if (event !== 'message') return super.emit(event, ...args);
      const data = String(args[0]);
      const deliver = () => {
        if (data.includes('"type":"Changed"')) state.changed.push(JSON.parse(data));
        return super.emit(event, ...args);
      };
      if (!state.holding || !data.includes('"type":"Changed"')) return deliver();
      waiting.push(deliver);
      return true;
    }
  }
  return Object.assign(state, {
    WebSocket: HeldSocket as unknown as WebSocketConstructor,
    /** Frames held now. */
    heldCount: () => waiting.length,
    release(): void {
      state.holding = false;
      for (const deliver of waiting.splice(0)) deliver();
    },
  });
}
