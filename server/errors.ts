// Typed errors with a status and a stable machine-readable code, and the registry of every code
// the API can answer. No HTTP or Koa here: services and server/db throw these, and the error
// middleware (server/http/errors.ts) renders them as application/problem+json (RFC 9457).
//
// A code a client can see is added to ERROR_CODES first: AppError, the helpers, problem() and
// the live channel's Error frame only accept a registered code, so an unknown one does not
// compile (test/integration/foundation/error-codes.test.ts also scans the sources for string codes).
import { fieldErrors, NUL_MESSAGE } from '@family-shopping/client/protocol';

/**
 * Every stable `code`, with the HTTP statuses it is answered with. An empty list: the code is
 * not an HTTP answer but appears inside one (a push row's `rejected[].code`) or in a live
 * channel `Error` frame.
 */
export const ERROR_CODES = {
  // Request shape and transport
  validation_failed: [400],
  bad_request: [400],
  invalid_json: [400],
  invalid_body: [400],
  reference_invalid: [400],
  method_not_allowed: [405],
  request_timeout: [408],
  payload_too_large: [413],
  unsupported_media_type: [415],
  headers_too_large: [431],
  rate_limited: [429],
  // Authentication and permission
  unauthenticated: [401],
  invalid_credentials: [400, 401],
  forbidden: [403],
  read_only: [400],
  invitation_invalid: [400, 404],
  family_code_invalid: [400],
  reset_token_invalid: [400],
  confirmation_invalid: [400],
  // Records
  not_found: [404],
  list_not_found: [400],
  store_not_found: [400],
  section_not_found: [400],
  unit_not_found: [400],
  product_not_found: [400],
  recipe_not_found: [400],
  ingredient_not_found: [400],
  recipe_servings_unset: [400],
  // Conflicts
  conflict: [409],
  id_conflict: [409],
  duplicate_email: [409],
  duplicate_user_name: [409],
  duplicate_name: [409],
  duplicate_invite_code: [409],
  abbreviation_taken: [409],
  already_member: [409],
  unit_in_use: [409],
  last_admin: [409],
  family_not_empty: [409],
  // Replication
  checkpoint_expired: [410],
  schema_outdated: [426],
  schema_unsupported: [400],
  parent_missing: [],
  // Live channel
  too_many_lists: [],
  // Server state
  internal_error: [500],
  busy: [503],
  service_unavailable: [503],
  not_ready: [503],
  shutting_down: [503],
} as const satisfies Record<string, readonly number[]>;

export type ErrorCode = keyof typeof ERROR_CODES;
/** The statuses a code is answered with. */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C][number];
/** The codes answered with status S. */
export type CodeWithStatus<S extends number> = { [C in ErrorCode]: S extends StatusOf<C> ? C : never }[ErrorCode];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);

export interface FieldError {
  path: string;
  message: string;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly status: StatusOf<C>,
    readonly code: C,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (code: CodeWithStatus<400>, message: string, errors?: FieldError[]) =>
  new AppError(400, code, message, errors);
export const validationFailed = (errors: FieldError[], message = 'The request is not valid') =>
  new AppError(400, 'validation_failed', message, errors);
export const unauthenticated = (message = 'Authentication is required') =>
  new AppError(401, 'unauthenticated', message);
/** A token that is malformed, tampered, expired, or names a membership that no longer holds. */
export const invalidToken = () => unauthenticated('The access token is invalid or expired');
export const forbidden = (message = 'You are not allowed to do this') => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (code: CodeWithStatus<409>, message: string) => new AppError(409, code, message);

/** Field errors of a zod error (the protocol's one mapping: REST, push and the SDK agree). */
export const zodErrors = fieldErrors;

/**
 * Strings holding U+0000, which PostgreSQL text cannot store (it would fail in the database as
 * a 500). Checked on validated input, so every route answers `400 validation_failed` naming
 * the field instead.
 */
export function nulErrors(value: unknown, prefix?: string): FieldError[] {
  const out: FieldError[] = [];
  const walk = (v: unknown, path: string[]): void => {
    if (typeof v === 'string') {
      if (v.includes('\u0000'))
        out.push({ path: [prefix, ...path].filter(Boolean).join('.') || '(root)', message: NUL_MESSAGE });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, String(i)]));
    } else if (v && typeof v === 'object' && !(v instanceof Date)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(value, []);
  return out;
}
