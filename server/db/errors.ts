// Postgres error mapping, in one place. Driver text never reaches a client: constraint names
// map to stable codes and plain messages.
import { CATALOG_REFUSALS } from '@family-shopping/client/protocol';
import { AppError, type CodeWithStatus } from '../errors.js';

interface PgError {
  code?: string;
  constraint?: string;
}

/** Known constraints that users can hit, with the error they should see. */
const CONSTRAINTS: Record<string, { status: 400 | 409; code: CodeWithStatus<400 | 409>; message: string }> = {
  users_email_unique: { status: 409, code: 'duplicate_email', message: 'That email is already registered' },
  users_user_name_lower_unique: { status: 409, code: 'duplicate_user_name', message: 'That user name is taken' },
  stores_name_unique: { status: 409, code: 'duplicate_name', message: 'A store with that name already exists' },
  // The catalog's, worded once with the SDK's (protocol/inputs.ts).
  family_products_name_unique: { status: 409, ...CATALOG_REFUSALS.duplicateProductName },
  family_units_abbreviation_unique: { status: 409, ...CATALOG_REFUSALS.abbreviationTaken },
  families_invite_code_unique: { status: 409, code: 'duplicate_invite_code', message: 'That invite code is taken' },
  shopping_list_items_one_unit: {
    status: 400,
    code: 'validation_failed',
    message: 'At most one of unitOfMeasureId and familyUnitOfMeasureId may be set',
  },
  recipe_ingredients_one_unit: {
    status: 400,
    code: 'validation_failed',
    message: 'At most one of unitOfMeasureId and familyUnitOfMeasureId may be set',
  },
  shopping_list_items_one_product: {
    status: 400,
    code: 'validation_failed',
    message: 'At most one of productId and familyProductId may be set',
  },
  recipe_ingredients_one_product: {
    status: 400,
    code: 'validation_failed',
    message: 'At most one of productId and familyProductId may be set',
  },
};

/** Seconds a client is told to wait (`Retry-After`) while the database cannot be reached. */
export const DB_RETRY_AFTER_SECONDS = 5;

/**
 * Node socket errors of a connection that cannot be made or was lost. Not ECONNABORTED: that
 * is what a client aborting its own request body raises (raw-body's `request aborted`), which
 * is no sign of the database (server/http/middleware.ts logs it as an aborted request).
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs that say the server cannot serve us right now: class 08 (connection exception),
 * admin/crash shutdown, "the database system is starting up / shutting down", and too many
 * connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres and knex report a lost or impossible connection with these messages. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Connection terminated due to connection timeout|timeout expired|Knex: Timeout acquiring a connection)/;

/**
 * True when the error says the database could not be reached (refused, lost, timed out, shutting
 * down), as opposed to a query the database refused. Such a request gets `503` and may be
 * retried; nothing about it is the request's fault.
 */
export function isDbUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 3) return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string') {
    if (NETWORK_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.has(e.code) || e.code.startsWith('08')) return true;
  }
  if (e.name === 'KnexTimeoutError') return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  // A refused connection to a host with several addresses is an AggregateError of them.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => isDbUnavailable(x, depth + 1)))
    return true;
  return e.cause !== undefined && isDbUnavailable(e.cause, depth + 1);
}

export const serviceUnavailable = () =>
  new AppError(
    503,
    'service_unavailable',
    'The service cannot reach its database right now; retry shortly',
    undefined,
    {
      'Retry-After': String(DB_RETRY_AFTER_SECONDS),
    },
  );

export function isPgError(err: unknown): err is PgError & Error {
  return (
    !!err &&
    typeof err === 'object' &&
    typeof (err as PgError).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((err as PgError).code!)
  );
}

/** Maps a Postgres error to an AppError, or returns undefined when it is not one we expose. */
export function mapPgError(err: unknown): AppError | undefined {
  if (isDbUnavailable(err)) return serviceUnavailable();
  if (!isPgError(err)) return undefined;
  const known = err.constraint && Object.hasOwn(CONSTRAINTS, err.constraint) ? CONSTRAINTS[err.constraint] : undefined;
  if (known) return new AppError(known.status, known.code, known.message);
  switch (err.code) {
    case '23505':
      return new AppError(409, 'conflict', 'The record conflicts with an existing one');
    case '23503':
      return new AppError(400, 'reference_invalid', 'The request references a record that does not exist');
    case '23502':
    case '23514':
    case '22P02':
      return new AppError(400, 'validation_failed', 'The request is not valid');
    case '22001':
    case '22003':
      return new AppError(400, 'validation_failed', 'A value is too long or out of range');
    case '22021': // character_not_in_repertoire: the NUL character (U+0000) in text
    case '22P05': // untranslatable_character
      return new AppError(400, 'validation_failed', 'A text value holds a character that cannot be stored');
    case '40001':
    case '40P01':
      return new AppError(503, 'busy', 'The service is busy, please retry');
    default:
      // Any other data exception (class 22: a date or time out of range, a bad time zone
      // displacement, …) is a value the database cannot hold: the request's fault, not ours.
      if (err.code?.startsWith('22'))
        return new AppError(400, 'validation_failed', 'A value is out of range or malformed');
      return undefined;
  }
}
