// The one place that reads process.env. Validated with zod at start; an invalid value stops the
// process with a message naming the variable.
import { isIP } from 'node:net';
import { z } from 'zod';
import { LIMITS } from '@family-shopping/client/protocol';

const durationOrZero = z.string().regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration such as 15m, 12h or 30d');
const duration = durationOrZero.refine((v) => /[1-9]/.test(v), 'must be longer than zero');

const bool = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false'))
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL (${protocols.join(' or ')})`,
  );

/** A DNS host name: dot-separated labels of letters, digits and inner hyphens. */
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

const schema = z.object({
  PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535')
    .transform(Number)
    .pipe(z.number().max(65535, 'must be a port number from 0 to 65535'))
    .default(3000),
  HOST: z
    .string()
    .refine(
      (v) => isIP(v) !== 0 || HOSTNAME.test(v),
      'must be an IP address or a host name (0.0.0.0 or :: for every interface)',
    )
    .default('127.0.0.1'),
  DATABASE_URL: url(['postgres:', 'postgresql:', 'pglite:']).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  JWT_SECRET: z
    .string()
    .refine((v) => Buffer.byteLength(v) >= 32, 'must be at least 32 bytes')
    .optional(),
  ACCESS_TOKEN_TTL: duration.default('15m'),
  REFRESH_TOKEN_TTL: duration.default('30d'),
  /** How long a rotated refresh token still answers with its successor (0s: never). */
  REFRESH_REUSE_GRACE: durationOrZero.default('30s'),
  /** Unset: the server's own address once it listens (see server/mail/base-url.ts). */
  APP_BASE_URL: url(['http:', 'https:']).optional(),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  MAIL_FROM: z.string().min(3).default('Family Shopping <no-reply@localhost>'),
  DEFAULT_FAMILY_NAME: z.string().trim().min(1).max(LIMITS.familyName).default('Family'),
  DEFAULT_FAMILY_INVITE_CODE: z
    .string()
    .regex(/^[A-Za-z0-9_-]{6,64}$/, 'must be 6 to 64 letters, digits, _ or -')
    .optional(),
  ALLOW_NEW_FAMILIES: bool.default(true),
  /** Memory for copies of list details (server/lists/detail-cache.ts), in MiB; 0 keeps none. */
  LIST_DETAIL_CACHE_MB: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of MiB (0 turns it off)')
    .transform(Number)
    .default(32),
  /** Live sockets one user may hold; a new one beyond it closes the user's oldest with 4429. */
  MAX_SOCKETS_PER_USER: z
    .string()
    .regex(/^[1-9]\d{0,5}$/, 'must be a whole number from 1')
    .transform(Number)
    .default(20),
  TRUST_PROXY: bool.default(false),
  /** PEM certificate (chain) and private key: both set, the server listens with TLS (server/tls.ts). */
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  /** Prometheus text at http://127.0.0.1:{METRICS_PORT}/metrics (server/metrics); unset: off. */
  METRICS_PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535')
    .transform(Number)
    .pipe(z.number().max(65535, 'must be a port number from 0 to 65535'))
    .optional(),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

// TLS needs both files; one alone is a mistake, not plain HTTP.
const checked = schema.superRefine((c, ctx) => {
  if (c.TLS_CERT_FILE && !c.TLS_KEY_FILE)
    ctx.addIssue({ code: 'custom', path: ['TLS_KEY_FILE'], message: 'must be set with TLS_CERT_FILE' });
  if (c.TLS_KEY_FILE && !c.TLS_CERT_FILE)
    ctx.addIssue({ code: 'custom', path: ['TLS_CERT_FILE'], message: 'must be set with TLS_KEY_FILE' });
});

export type Config = Omit<z.output<typeof schema>, 'ACCESS_TOKEN_TTL' | 'REFRESH_TOKEN_TTL'> & {
  ACCESS_TOKEN_TTL: string;
  REFRESH_TOKEN_TTL: string;
  /** Token lifetimes in seconds, parsed from the TTL strings. */
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** REFRESH_REUSE_GRACE in milliseconds (0: off). */
  refreshReuseGraceMs: number;
};

export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

export function durationSeconds(value: string): number {
  return Math.max(1, Math.floor(durationMs(value) / 1000));
}

/** A duration string (`500ms`, `30s`, `15m`, `12h`, `30d`, `0s`) in milliseconds. */
export function durationMs(value: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(value);
  if (!m) throw new Error(`bad duration ${value}`);
  return Math.round(Number(m[1]) * UNIT_SECONDS[m[2]!]! * 1000);
}

/** Parses configuration from an environment (process.env by default); throws ConfigError. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Treat empty strings as unset, as shells and .env files often produce them.
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') input[key] = v;
  }
  const parsed = checked.safeParse(input);
  if (!parsed.success) {
    const vars = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(vars, `Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return {
    ...c,
    accessTokenTtlSeconds: durationSeconds(c.ACCESS_TOKEN_TTL),
    refreshTokenTtlSeconds: durationSeconds(c.REFRESH_TOKEN_TTL),
    refreshReuseGraceMs: durationMs(c.REFRESH_REUSE_GRACE),
  };
}
