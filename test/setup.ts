// Root hooks: close the shared app once the whole suite has run.
import { closeSharedApp } from './helpers/app.js';

// Processes the tests start (a second server instance, `npm run migrate`, SDK devices) resolve
// @family-shopping/client to its TypeScript sources too, like this process (.mocharc.json), so
// they never run a stale client-sdk/dist.
const SOURCE_CONDITION = '--conditions=@family-shopping/source';
if (!(process.env.NODE_OPTIONS ?? '').includes(SOURCE_CONDITION)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${SOURCE_CONDITION}`.trim();
}

export const mochaHooks = {
  async afterAll() {
    await closeSharedApp();
  },
};
