import { defineConfig } from 'vitest/config';

// The motion calibration (the 56 scripted transitions of the sample app) runs alone after the rest:
// beside another Chromium suite on 2 cores the screencast comes in bursts and the classifier, rightly,
// says less (scrolls read as replace, offsets withheld), which is not what that suite measures.
const CALIBRATION = ['test/browser/perception.test.ts'];
// Suites that keep the machine busy for a minute or more: 10,000 fuzzed requests, 2,000 hostile
// worker messages, a hostile gateway, and the farm at scale (hundreds of clients on 2 gateways and
// 3 workers). Beside the browser suites they starved their timing (a switch flip judged unchanged, a
// forgotten memory heard late; beside the farm at scale a device's Chromium took 50 s to boot, and in
// CI one gave up). None of them measures time, so they run after the rest, two at a time.
const BUSY = ['test/e2e/fuzz-rest.test.ts', 'test/e2e/fuzz-worker.test.ts', 'test/e2e/fuzz-gateway.test.ts', 'test/e2e/farm-scale.test.ts'];
// Suites that measure under load of their own making, alone: the short soak (three agents driving
// Chromium flat out) and the session streams, whose 500 subscribers beside two browser suites missed
// even a loose bound in CI.
const LOAD = ['test/browser/soak.test.ts', 'test/e2e/session-events.test.ts'];

export default defineConfig({
  test: {
    // Child processes and real sockets: forks isolate signals and globals per file.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...CALIBRATION, ...BUSY, ...LOAD],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'busy', include: BUSY, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'load', include: LOAD, maxWorkers: 1, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: 'calibration', include: CALIBRATION, maxWorkers: 1, sequence: { groupOrder: 3 } } },
    ],
  },
});
