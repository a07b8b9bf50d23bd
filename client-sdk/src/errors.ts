/**
 * Errors the SDK throws. Every answer of the server that is not a success becomes a
 * FamilyApiError built from its problem+json body (api-contract §1); a request that never got
 * an answer (offline, DNS, connection refused) is a FamilyApiError with status 0 and code
 * `network_error`.
 */
export interface ProblemFieldError {
  path: string;
  message: string;
}

export class FamilyApiError extends Error {
  override readonly name = 'FamilyApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: ProblemFieldError[],
    readonly type?: string,
    options?: { cause?: unknown },
  ) {
    super(detail ? `${status} ${code}: ${detail}` : `${status} ${code}`, options);
  }

  /** True when the request never reached the server or the server could not answer now
   * (network failure, 5xx, 429): worth retrying later, unchanged. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export function networkError(cause: unknown): FamilyApiError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new FamilyApiError(0, 'network_error', 'Network error', message, undefined, undefined, { cause });
}

/** Builds the error of a non-2xx response (reads its body). */
export async function problemFrom(res: Response): Promise<FamilyApiError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // body unreadable: keep the status only
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON (e.g. a proxy's HTML page)
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return new FamilyApiError(
    res.status,
    str(body.code) ?? `http_${res.status}`,
    str(body.title) ?? res.statusText ?? `HTTP ${res.status}`,
    str(body.detail),
    Array.isArray(body.errors) ? (body.errors as ProblemFieldError[]) : undefined,
    str(body.type),
  );
}

/** A misuse of the client the app must fix (not an answer of the server). */
export class FamilyClientError extends Error {
  override readonly name = 'FamilyClientError';
  constructor(
    readonly code: 'database_of_another_family' | 'destroyed' | 'no_websocket' | 'stopped',
    message: string,
  ) {
    super(message);
  }
}
