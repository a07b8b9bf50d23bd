/**
 * Whether the server can be reached, and the wakeups that follow (the replicating client's
 * view; docs/sdk.md "Network behaviour"). Every request reports its outcome (Transport's
 * `onReachable`), the live channel its connection, the browser its `online`/`offline` events.
 * While requests fail, one cheap request now and then (the probe) finds out when the server
 * answers again, even when nothing else is being sent. When it does, or the browser says the
 * network is back, every wait on `wakeup` (backoffs, RxDB's `retryTime`) ends and the live
 * channel reconnects at once.
 */
import { backoffDelay, Wakeup, type BackoffOptions } from '../backoff.js';

export interface ConnectivityOptions {
  /** The live channel is in use: being online needs it up too. */
  realtime: boolean;
  backoff?: BackoffOptions;
  /** One cheap request; its outcome comes back through `setReachable`. */
  probe(): Promise<unknown>;
  /** A live channel waiting out its backoff reconnects now. */
  reconnectLive(): void;
  /** The browser says the network is back (after every wait was woken): catch up now. */
  networkBack(): void;
  /** `online` may have changed. */
  changed(): void;
}

export class Connectivity {
  /** Every retry the client waits out waits here, so none outlives the moment it could work. */
  readonly wakeup = new Wakeup();
  /** The last request got an answer (and no browser `offline` came since). */
  private reachable = true;
  private liveUp = false;
  private probing = false;
  /** Between start() and stop(): this client replicates, so probing is worth it. */
  private watching = false;
  private removeListeners: (() => void) | null = null;

  constructor(private readonly options: ConnectivityOptions) {}

  /** Requests reach the server (and, with the live channel, it is up). */
  get online(): boolean {
    return this.reachable && (!this.options.realtime || this.liveUp);
  }

  /** Replicating starts here: reachable unless the browser knows it is offline; follow the
   *  browser's network events. */
  start(): void {
    this.watching = true;
    this.reachable = !isBrowserOffline();
    this.removeListeners = listenToNetwork(
      () => {
        // The browser says the network is back: whatever waits goes now.
        this.wakeAll();
        this.options.networkBack();
      },
      () => this.setReachable(false),
    );
  }

  stop(): void {
    this.watching = false;
    this.removeListeners?.();
    this.removeListeners = null;
    this.liveUp = false;
  }

  /** What a request found out (any answer: true; none: false). */
  setReachable(ok: boolean): void {
    if (this.reachable === ok) return;
    this.reachable = ok;
    this.options.changed();
    if (!ok) void this.probe();
    // A request got through again: the network is back, whatever the browser says.
    else this.wakeAll();
  }

  /** The live channel authenticated: the server answers; requests waiting out a backoff go now.
   *  (The caller reports the change once it has asked for the catch-up pull.) */
  liveConnected(): void {
    this.liveUp = true;
    this.reachable = true;
    this.wakeup.wake();
  }

  liveDisconnected(): void {
    this.liveUp = false;
  }

  /** Every retry that waits (backoff, retryTime, a reconnect) starts now. */
  wakeAll(): void {
    this.wakeup.wake();
    this.options.reconnectLive();
  }

  private async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      for (let n = 0; this.watching && !this.reachable; n++) {
        await this.wakeup.wait(backoffDelay(n, this.options.backoff));
        if (!this.watching || this.reachable) break;
        await this.options.probe().catch(() => undefined);
      }
    } finally {
      this.probing = false;
    }
  }
}

function isBrowserOffline(): boolean {
  const nav = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
  return nav?.onLine === false;
}

/** Browser `online`/`offline` events where the runtime has them; returns the unsubscribe. */
function listenToNetwork(online: () => void, offline: () => void): () => void {
  const target = globalThis as {
    addEventListener?: (t: string, l: () => void) => void;
    removeEventListener?: (t: string, l: () => void) => void;
  };
  if (typeof target.addEventListener !== 'function' || typeof target.removeEventListener !== 'function')
    return () => undefined;
  target.addEventListener('online', online);
  target.addEventListener('offline', offline);
  return () => {
    target.removeEventListener!('online', online);
    target.removeEventListener!('offline', offline);
  };
}
