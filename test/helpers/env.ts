// The environment the suite runs in: embedded PGlite in memory by default; PostgreSQL and Redis
// when DATABASE_URL / REDIS_URL are set (CI runs both legs).
export const usingPostgres = !!process.env.DATABASE_URL && /^postgres(ql)?:/.test(process.env.DATABASE_URL);
export const usingRedis = !!process.env.REDIS_URL;

export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: process.env.DATABASE_URL || 'pglite://memory',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'silent',
    APP_BASE_URL: 'http://app.test',
    ...overrides,
  };
}
