import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

// Field paths that may carry secrets; pino replaces them before a line is written.
const REDACT = [
  'password',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'inviteToken',
  'authorization',
  '*.password',
  '*.newPassword',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.inviteToken',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
];

/**
 * The service's logger: `destination` where given (e.g. a test's capture); otherwise stdout, as
 * one JSON object a line for log collectors, or readable lines (pino-pretty, in this process and
 * synchronous like pino's own stdout) when stdout is a terminal. Redaction and the error
 * serializer apply before either.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: undefined,
    serializers: { err: errorFields },
  };
  if (destination) return pino(options, destination);
  if (process.stdout.isTTY) {
    return pino(options, pretty({ destination: 1, sync: true, translateTime: 'SYS:HH:MM:ss.l' }));
  }
  return pino(options);
}

/**
 * What of an error may go into a log line: its name, its message, and a database error's SQLSTATE,
 * constraint and table. Never the stack (house rule) and never SQL text (createDb strips the
 * statement knex puts in front of a database error's message). It is the logger's serializer
 * for `err`, so `log.error({ err }, …)` is safe whatever `err` is; applying it twice changes
 * nothing.
 */
export function errorFields(err: unknown): Record<string, string> {
  if (!err || typeof err !== 'object') return { message: String(err) };
  const e = err as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const key of ['name', 'message', 'code', 'constraint', 'table'] as const) {
    if (typeof e[key] === 'string') out[key] = e[key] as string;
  }
  return out;
}

export type { Logger };
