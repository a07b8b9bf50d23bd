/**
 * The one place that calls `fetch`: base URL, JSON bodies, bearer token, network errors, a
 * deadline per request, and what requests tell about reachability.
 */
import { networkError } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  /** A request (headers and body) that takes longer is aborted: `network_error` (ms). */
  timeoutMs: number;
  /** Every outcome: true when the server answered (any status), false when nothing came back. */
  onReachable?: (ok: boolean) => void;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** The text of each response `send` read whole: `readJson` parses it as is instead of encoding
 *  it into the new Response's body and decoding it again (a pull page is about 450 KB). */
const BODIES = new WeakMap<Response, string>();

export class Transport {
  private readonly base: string;
  constructor(
    baseUrl: string,
    private readonly fetchImpl: FetchLike,
    private readonly options: TransportOptions = { timeoutMs: 15_000 },
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  url(path: string): string {
    return this.base + path;
  }

  /**
   * Sends one request and reads its whole body within the deadline; throws FamilyApiError
   * `network_error` when no complete answer came back (offline, refused, timed out).
   */
  async send(method: string, path: string, body?: unknown, token?: string | null): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    try {
      const res = await this.fetchImpl(this.url(path), { method, headers, body: payload, signal: controller.signal });
      // The body too: a connection that dies mid-answer must not hang the caller.
      const text = await res.text();
      this.options.onReachable?.(true);
      const read = new Response(NULL_BODY.has(res.status) ? null : text, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
      BODIES.set(read, text);
      return read;
    } catch (err) {
      this.options.onReachable?.(false);
      throw networkError(timedOut ? new Error(`no answer within ${this.options.timeoutMs} ms`) : err);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Parses a success body: JSON, or undefined for an empty body (204). */
export async function readJson<T>(res: Response): Promise<T> {
  const text = BODIES.get(res) ?? (await res.text());
  return (text ? JSON.parse(text) : undefined) as T;
}
