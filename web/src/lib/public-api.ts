/**
 * The few public auth endpoints that need no session (the SDK's `rest` sends the session's
 * token; these are answered before there is one): invitation lookup, password reset, email
 * confirmation. Online only; errors are the SDK's FamilyApiError.
 */
import { FamilyApiError } from '@family-shopping/client';

export async function publicRequest<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new FamilyApiError(0, 'network_error', 'Network error', String(err));
  }
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // not JSON
  }
  if (!res.ok) {
    const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
    throw new FamilyApiError(
      res.status,
      s(json.code) ?? `http_${res.status}`,
      s(json.title) ?? res.statusText,
      s(json.detail),
      json.errors as never,
    );
  }
  return json as T;
}
