import { defineConfig } from 'vitest/config';

// The motion calibration (the 56 scripted transitions of the sample app) runs alone after the rest:
// beside another Chromium suite on 2 cores the screencast comes in bursts and the classifier, rightly,
// says less (scrolls read as replace, offsets withheld), which is not what that suite measures.
const CALIBRATION = ['test/browser/perception.test.ts'];
// The load suites (10,000 fuzzed requests, 2,000 hostile worker messages) keep a core busy for a
// minute: beside the browser suites they starved their timing (a switch flip judged unchanged, a
// forgotten memory heard late, in CI). So does the short soak (three agents driving Chromium flat
// out). They run by themselves, after the rest, before calibration. So do the session streams, whose
// 500 subscribers beside two browser suites missed even a loose bound in CI. So does the farm at
// scale (hundreds of clients on 2 gateways and 3 workers): beside it a browser suite's device took
// 50 s to boot, and in CI one gave up waiting.
const LOAD = ['test/e2e/fuzz-rest.test.ts', 'test/e2e/fuzz-worker.test.ts', 'test/browser/soak.test.ts', 'test/e2e/session-events.test.ts', 'test/e2e/farm-scale.test.ts'];

export default defineConfig({
  test: {
    // Child processes and real sockets: forks isolate signals and globals per file.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...CALIBRATION, ...LOAD], maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'load', include: LOAD, maxWorkers: 1, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'calibration', include: CALIBRATION, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
