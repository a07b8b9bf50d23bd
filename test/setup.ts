// Root hooks: close the shared app once the whole suite has run; fail a test whose live sockets
// received a frame the protocol does not define.
import { closeSharedApp } from './helpers/app.js';
import { takeUndecodableFrames } from './helpers/live-frames.js';

// Processes the tests start (a second server instance, `npm run migrate`, SDK devices) resolve
// @family-shopping/client to its TypeScript sources too, like this process (.mocharc.json), so
// they never run a stale client-sdk/dist.
const SOURCE_CONDITION = '--conditions=@family-shopping/source';
if (!(process.env.NODE_OPTIONS ?? '').includes(SOURCE_CONDITION)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${SOURCE_CONDITION}`.trim();
}

export const mochaHooks = {
  afterEach() {
    const bad = takeUndecodableFrames();
    if (bad.length > 0) {
      throw new Error(`${bad.length} live frame(s) do not decode with decodeServerFrame:\n${bad.join('\n')}`);
    }
  },
  async afterAll() {
    await closeSharedApp();
  },
};
