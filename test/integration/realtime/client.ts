// A WebSocket client for the live-channel tests: records every frame, lets a test wait for a
// frame matching a predicate, and exposes the close code. Every frame is also decoded with the
// protocol's decodeServerFrame: one that does not decode fails the test (test/helpers/live-frames.ts).
import { WebSocket, type ClientOptions } from 'ws';
import type { ServerFrame } from '@family-shopping/client/protocol';
import { checkServerFrame } from '../../helpers/live-frames.js';

export type Frame = ServerFrame & Record<string, any>;

export interface Closed {
  code: number;
  reason: string;
}

export class TestSocket {
  readonly frames: Frame[] = [];
  readonly closed: Promise<Closed>;
  private listeners = new Set<() => void>();
  private cursor = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      checkServerFrame(text);
      this.frames.push(JSON.parse(text) as Frame);
      for (const l of [...this.listeners]) l();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const l of [...this.listeners]) l();
      });
    });
    ws.on('error', () => {
      // surfaced through `closed`
    });
  }

  static open(baseUrl: string, path = '/api/realtime', options: ClientOptions = {}): Promise<TestSocket> {
    const ws = new WebSocket(baseUrl.replace(/^http/, 'ws') + path, options);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new TestSocket(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { statusCode: res.statusCode })),
      );
    });
  }

  /** Opens, authenticates and waits for `Authenticated`. */
  static async connect(app: { url: string }, token: string, options: ClientOptions = {}): Promise<TestSocket> {
    const s = await TestSocket.open(app.url, '/api/realtime', options);
    s.send({ type: 'Authenticate', token });
    await s.next((f) => f.type === 'Authenticated');
    return s;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Waits for the next frame (after the last one returned) that matches. */
  next(match: (f: Frame) => boolean = () => true, timeoutMs = 5_000): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let i = this.cursor; i < this.frames.length; i++) {
          if (match(this.frames[i]!)) {
            this.cursor = i + 1;
            done();
            resolve(this.frames[i]!);
            return true;
          }
        }
        if (this.ws.readyState === WebSocket.CLOSED) {
          done();
          reject(
            new Error(
              `socket closed while waiting; frames: ${JSON.stringify(this.frames.slice(this.cursor)).slice(0, 500)}`,
            ),
          );
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `no matching frame within ${timeoutMs} ms; frames: ${JSON.stringify(this.frames.slice(this.cursor)).slice(0, 800)}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      const listener = () => void check();
      if (check()) return;
      this.listeners.add(listener);
    });
  }

  /** Frames of a type received so far (whatever the cursor). */
  ofType(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  /** Joins a list and waits for the answer (JoinedList or Error). */
  async join(listId: string, requestId: string | number = `join-${listId}`): Promise<Frame> {
    this.send({ type: 'JoinList', listId, requestId });
    return this.next((f) => (f.type === 'JoinedList' || f.type === 'Error') && f.requestId === requestId);
  }

  /** A round trip through the server's frame queue: once this resolves, every event published
   *  before it was sent has been handed to this socket too. */
  async sync(): Promise<void> {
    const id = `sync-${Math.random().toString(36).slice(2)}`;
    this.send({ type: 'JoinList', listId: '00000000-0000-4000-8000-000000000000', requestId: id });
    await this.next((f) => f.type === 'Error' && f.requestId === id);
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }
}

export { sleep } from '../../helpers/wait.js';
