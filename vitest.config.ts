import { defineConfig } from 'vitest/config';

// Two tiers. `npm test` (the `fast` project) is what every change pays before it lands: units,
// the contract, the database, and the end-to-end and browser suites that prove each capability
// once. `npm run test:acceptance` runs the rest: the checks whose issues name a volume, a duration
// or a count (the soak, fuzzing, the farm at scale, chaos, the motion calibration, the minute of
// the live clock, replays in a row), the process-heavy suites that exercise one subsystem in
// depth, and the field and conformance suites. CI runs both on every submission.
//
// A new test file lands in `fast` unless it is listed here.

// Acceptance suites that keep the machine busy for a minute or more (fuzzing, a hostile gateway,
// the farm at scale). Beside browser suites they starve their timing; none of them measures time,
// so they run after the rest, two at a time.
const BUSY = ['test/e2e/fuzz-rest.test.ts', 'test/e2e/fuzz-worker.test.ts', 'test/e2e/fuzz-gateway.test.ts', 'test/e2e/farm-scale.test.ts'];
// Acceptance suites that measure under load of their own making, alone: the short soak (three
// agents driving Chromium flat out) and the session streams (500 subscribers).
const LOAD = ['test/browser/soak.test.ts', 'test/e2e/session-events.test.ts'];
// The motion calibration (56 scripted transitions of the sample app) alone, last: beside another
// Chromium suite on 2 cores the screencast comes in bursts and the classifier rightly says less.
const CALIBRATION = ['test/browser/perception.test.ts'];
// The other acceptance suites, run two at a time before the busy ones.
const DEPTH = [
  'test/browser/perception-clock.test.ts',
  'test/browser/flows.test.ts',
  'test/browser/flows-replays.test.ts',
  'test/browser/web-device.test.ts',
  'test/browser/forms.test.ts',
  'test/browser/maestro.test.ts',
  'test/browser/cli-agent.test.ts',
  'test/browser/memory-shared.test.ts',
  'test/browser/boot-lane.test.ts',
  'test/browser/renderer-lifetime.test.ts',
  'test/browser/soak-collect.test.ts',
  'test/e2e/chaos.test.ts',
  'test/e2e/farm-chaos.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/inspect-cli.test.ts',
  'test/e2e/shutdown.test.ts',
  'test/e2e/worker-liveness.test.ts',
  'test/e2e/web-host.test.ts',
  'test/e2e/overloaded-host.test.ts',
  'test/e2e/strained-host.test.ts',
  'test/db/migrations.test.ts',
  'test/unit/android-boundary.test.ts',
  'test/unit/ios-boundary.test.ts',
  'test/field/**/*.test.ts',
];
const ACCEPTANCE = [...DEPTH, ...BUSY, ...LOAD, ...CALIBRATION];

export default defineConfig({
  test: {
    // Child processes and real sockets: forks isolate signals and globals per file.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...ACCEPTANCE], maxWorkers: 2 } },
      { extends: true, test: { name: 'acceptance', include: DEPTH, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'busy', include: BUSY, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'load', include: LOAD, maxWorkers: 1, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: 'calibration', include: CALIBRATION, maxWorkers: 1, sequence: { groupOrder: 3 } } },
    ],
  },
});
