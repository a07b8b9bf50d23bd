// Configuration exactly as the contract's section 2: names, defaults, and a message naming the
// variable for every invalid value. (That the process stops on one is in startup.test.ts.)
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../server/config.js';

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  return expect.fail(`accepted ${JSON.stringify(env)}`);
}

const VARIABLES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATA_DIR',
  'REDIS_URL',
  'JWT_SECRET',
  'ACCESS_TOKEN_TTL',
  'REFRESH_TOKEN_TTL',
  'REFRESH_REUSE_GRACE',
  'APP_BASE_URL',
  'SMTP_URL',
  'MAIL_FROM',
  'DEFAULT_FAMILY_NAME',
  'DEFAULT_FAMILY_INVITE_CODE',
  'ALLOW_NEW_FAMILIES',
  'LIST_DETAIL_CACHE_MB',
  'TRUST_PROXY',
  'NODE_ENV',
  'LOG_LEVEL',
] as const;

/** The contract's variables as the server sees them (unset ones as undefined). */
const variables = (c: ReturnType<typeof loadConfig>) => Object.fromEntries(VARIABLES.map((k) => [k, c[k]]));

describe('configuration (contract section 2)', () => {
  it('has the documented defaults when nothing is set', () => {
    const c = loadConfig({});
    expect(variables(c)).to.deep.equal({
      PORT: 3000,
      HOST: '127.0.0.1',
      DATABASE_URL: undefined,
      DATA_DIR: './data',
      REDIS_URL: undefined,
      JWT_SECRET: undefined,
      ACCESS_TOKEN_TTL: '15m',
      REFRESH_TOKEN_TTL: '30d',
      REFRESH_REUSE_GRACE: '30s',
      APP_BASE_URL: undefined, // the server's own address once it listens (auth/base-url.test.ts)
      SMTP_URL: undefined,
      MAIL_FROM: 'Family Shopping <no-reply@localhost>',
      DEFAULT_FAMILY_NAME: 'Family',
      DEFAULT_FAMILY_INVITE_CODE: undefined,
      ALLOW_NEW_FAMILIES: true,
      LIST_DETAIL_CACHE_MB: 32,
      TRUST_PROXY: false,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
    });
    expect(c.accessTokenTtlSeconds).to.equal(15 * 60);
    expect(c.refreshTokenTtlSeconds).to.equal(30 * 86400);
    expect(c.refreshReuseGraceMs).to.equal(30_000);
  });

  it('treats an empty value as unset', () => {
    const c = loadConfig({ PORT: '', DATABASE_URL: '', JWT_SECRET: '', ALLOW_NEW_FAMILIES: '' });
    expect(variables(c)).to.deep.equal(variables(loadConfig({})));
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://app@db.example:5432/shopping',
      DATA_DIR: '/var/lib/shopping',
      REDIS_URL: 'redis://cache.example:6379',
      JWT_SECRET: 'x'.repeat(32),
      ACCESS_TOKEN_TTL: '10m',
      REFRESH_TOKEN_TTL: '7d',
      REFRESH_REUSE_GRACE: '0s',
      APP_BASE_URL: 'https://shop.example',
      SMTP_URL: 'smtp://mail.example:587',
      MAIL_FROM: 'Shop <shop@example.com>',
      DEFAULT_FAMILY_NAME: 'The Smiths',
      DEFAULT_FAMILY_INVITE_CODE: 'SMITHS-2024',
      ALLOW_NEW_FAMILIES: 'false',
      LIST_DETAIL_CACHE_MB: '0',
      TRUST_PROXY: 'TRUE',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
    });
    expect(variables(c)).to.deep.equal({
      JWT_SECRET: 'x'.repeat(32),
      PORT: 0,
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://app@db.example:5432/shopping',
      DATA_DIR: '/var/lib/shopping',
      REDIS_URL: 'redis://cache.example:6379',
      ACCESS_TOKEN_TTL: '10m',
      REFRESH_TOKEN_TTL: '7d',
      REFRESH_REUSE_GRACE: '0s',
      APP_BASE_URL: 'https://shop.example',
      SMTP_URL: 'smtp://mail.example:587',
      MAIL_FROM: 'Shop <shop@example.com>',
      DEFAULT_FAMILY_NAME: 'The Smiths',
      DEFAULT_FAMILY_INVITE_CODE: 'SMITHS-2024',
      ALLOW_NEW_FAMILIES: false,
      LIST_DETAIL_CACHE_MB: 0,
      TRUST_PROXY: true,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
    });
    expect(c.accessTokenTtlSeconds).to.equal(600);
    expect(c.refreshTokenTtlSeconds).to.equal(7 * 86400);
    expect(c.refreshReuseGraceMs).to.equal(0);
    expect(loadConfig({ REFRESH_REUSE_GRACE: '1500ms' }).refreshReuseGraceMs).to.equal(1500);
    expect(loadConfig({ DATABASE_URL: 'pglite://memory' }).DATABASE_URL).to.equal('pglite://memory');
  });

  const invalid: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['HOST', 'not@host'],
    ['HOST', 'two words'],
    ['HOST', 'http://example.com'],
    ['DATABASE_URL', 'mysql://db/shopping'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://cache'],
    ['JWT_SECRET', 'x'.repeat(31)],
    ['ACCESS_TOKEN_TTL', 'forever'],
    ['ACCESS_TOKEN_TTL', '0m'],
    ['REFRESH_TOKEN_TTL', '30'],
    ['REFRESH_REUSE_GRACE', '30'],
    ['REFRESH_REUSE_GRACE', '-1s'],
    ['APP_BASE_URL', 'localhost:5173'],
    ['SMTP_URL', 'mail.example'],
    ['DEFAULT_FAMILY_INVITE_CODE', 'a b'],
    ['ALLOW_NEW_FAMILIES', 'maybe'],
    ['LIST_DETAIL_CACHE_MB', '-1'],
    ['LIST_DETAIL_CACHE_MB', '1.5'],
    ['TRUST_PROXY', 'sometimes'],
    ['NODE_ENV', 'staging'],
    ['LOG_LEVEL', 'loud'],
  ];
  for (const [name, value] of invalid) {
    it(`rejects ${name}=${JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}…` : value)} naming the variable`, () => {
      const err = failure({ [name]: value });
      expect(err.variables).to.deep.equal([name]);
      expect(err.message).to.match(new RegExp(`^Invalid configuration:\\n  ${name}: `));
    });
  }

  it('names every invalid variable at once', () => {
    const err = failure({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(err.variables).to.have.members(['PORT', 'LOG_LEVEL']);
  });
});
