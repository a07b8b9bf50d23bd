// Root hooks: close the shared app once the whole suite has run.
import { closeSharedApp } from './helpers/app.js';

export const mochaHooks = {
  async afterAll() {
    await closeSharedApp();
  },
};
