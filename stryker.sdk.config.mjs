// @ts-check
// Mutation testing of the SDK (client-sdk/src) against the tests that exercise it: its unit
// tests, the protocol's, and the SDK's end-to-end tests against the real app. See stryker/base.mjs.
import { mutationConfig } from './stryker/base.mjs';

export default mutationConfig({
  name: 'sdk',
  mutate: ['client-sdk/src/**/*.ts', '!client-sdk/src/**/*.d.ts'],
  spec: ['test/unit/sdk/**/*.test.ts', 'test/unit/protocol/**/*.test.ts', 'test/e2e/sdk/**/*.test.ts'],
});
