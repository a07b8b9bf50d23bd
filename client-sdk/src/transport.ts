/** The one place that calls `fetch`: base URL, JSON bodies, bearer token, network errors. */
import { networkError } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export class Transport {
  private readonly base: string;
  constructor(
    baseUrl: string,
    private readonly fetchImpl: FetchLike,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  url(path: string): string {
    return this.base + path;
  }

  /** Sends one request; throws FamilyApiError `network_error` when no answer came back. */
  async send(method: string, path: string, body?: unknown, token?: string | null): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    try {
      return await this.fetchImpl(this.url(path), { method, headers, body: payload });
    } catch (err) {
      throw networkError(err);
    }
  }
}

/** Parses a success body: JSON, or undefined for an empty body (204). */
export async function readJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
