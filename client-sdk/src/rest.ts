/**
 * Authenticated REST calls. A `401` is answered once by refreshing the access token
 * (single-flight, see Auth.refresh) and sending the same request again.
 */
import { notSignedIn, type Auth } from './auth.js';
import { problemFrom } from './errors.js';
import { readJson, type Transport } from './transport.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export class Rest {
  constructor(
    private readonly transport: Transport,
    private readonly auth: Auth,
  ) {}

  /**
   * Sends a request with the session's access token and returns the raw response (any
   * status). On 401 the token is refreshed once and the request retried; when the refresh is
   * refused the 401 response is returned (and the session is gone). Throws FamilyApiError
   * `unauthenticated` without a session, `network_error` when offline.
   */
  async send(method: HttpMethod, path: string, body?: unknown): Promise<Response> {
    const token = await this.auth.accessToken();
    if (!token) throw notSignedIn();
    const res = await this.transport.send(method, path, body, token);
    if (res.status !== 401) return res;
    const renewed = await this.auth.refresh(token);
    if (!renewed) return res;
    await res.body?.cancel().catch(() => undefined);
    return this.transport.send(method, path, body, renewed.accessToken);
  }

  /** JSON request; resolves to the parsed body (undefined for 204), throws FamilyApiError
   * built from problem+json on any non-2xx answer. */
  async request<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    if (!res.ok) throw await problemFrom(res);
    return readJson<T>(res);
  }
}
