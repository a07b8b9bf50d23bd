// @ts-check
// Mutation testing of the server (server/) against the server's unit, integration and
// end-to-end tests. See stryker/base.mjs.
import { mutationConfig } from './stryker/base.mjs';

export default mutationConfig({
  name: 'server',
  mutate: ['server/**/*.ts'],
  spec: ['test/unit/server/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/replication.test.ts'],
});
