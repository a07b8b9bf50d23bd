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
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(detail ? `${status} ${code}: ${detail}` : `${status} ${code}`, options);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** The server's `Retry-After` (a 429 or 503), in ms: no retry should come sooner. */
  readonly retryAfterMs?: number;

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
    // HTTP/2 answers (and some proxies) carry no status text: '' is none too.
    str(body.title) ?? (res.statusText || `HTTP ${res.status}`),
    str(body.detail),
    Array.isArray(body.errors) ? (body.errors as ProblemFieldError[]) : undefined,
    str(body.type),
    { retryAfterMs: retryAfterMs(res.headers.get('retry-after')) },
  );
}

/** `Retry-After` as delay-seconds or an HTTP date, in ms (capped at an hour); none: undefined. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  // An HTTP date names its day and month; anything else that is not whole seconds ("1.5",
  // "-5", which Date.parse would read as years) is not a Retry-After.
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : /[a-z]/i.test(v) ? Date.parse(v) - now : NaN;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 3_600_000) : undefined;
}

/**
 * - `database_of_another_family`: `start()` with a session of another family than the local data's;
 * - `destroyed`, `closed`: the client was destroyed or closed;
 * - `no_websocket`: `realtime: true` but no WebSocket in this runtime (pass one);
 * - `stopped`: the client stopped before `sync()`/`awaitInSync()` settled;
 * - `database_in_use`: a client of this database is already open in this page (or process);
 * - `too_many_clients`: another client is open in this page with another database (RxDB's
 *   open-source build allows 13 collections at a time; a client uses 9).
 * - `validation_failed`: a domain call (`client.lists.create`, …) got an input the server would
 *   refuse; `errors` names the fields; nothing was written;
 * - `not_found`: a domain call named a record the local database does not hold (or, for an
 *   item, one that is removed where the call needs an active one);
 * - `forbidden`: a domain call needs the admin role (section changes).
 * - `unit_in_use`: `client.units.delete` of a unit a local list item (removed ones too) or
 *   recipe ingredient uses (REST: `409 unit_in_use`, same message); nothing was written.
 * - `recipe_servings_unset`: `client.recipes.copyToList` with `servings` of a recipe without
 *   servings (REST: `400 recipe_servings_unset`); `errors` names `servings`; nothing was written.
 */
export type FamilyClientErrorCode =
  | 'database_of_another_family'
  | 'destroyed'
  | 'closed'
  | 'no_websocket'
  | 'stopped'
  | 'database_in_use'
  | 'too_many_clients'
  | 'validation_failed'
  | 'not_found'
  | 'forbidden'
  | 'unit_in_use'
  | 'recipe_servings_unset';

/** A misuse of the client the app must fix, or a runtime it cannot work in (not an answer of
 * the server). */
export class FamilyClientError extends Error {
  override readonly name = 'FamilyClientError';
  constructor(
    readonly code: FamilyClientErrorCode,
    message: string,
    options?: { cause?: unknown; errors?: ProblemFieldError[] },
  ) {
    super(message, options);
    if (options?.errors) this.errors = options.errors;
  }

  /** The refused fields of a `validation_failed` domain call (`path` as in REST without `body.`). */
  readonly errors?: ProblemFieldError[];
}
