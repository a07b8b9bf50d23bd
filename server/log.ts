import { pino, type Logger } from 'pino';

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

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined });
}

export type { Logger };
