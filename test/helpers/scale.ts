// Two scales for the acceptance checks whose issues name a count (1,000 concurrent requests, 20
// replays in a row). `npm test` runs them at a count that takes every path the full one does and
// keeps the suite inside its time on 2 cores; `npm run test:full` (SIMFLEET_TEST_FULL=1) runs the
// counts the issues name, on the files its script lists: a test that starts using atScale belongs
// on that list. Each test prints the count it ran, so a log says which scale it was.
const FULL_SCALE = process.env.SIMFLEET_TEST_FULL === '1';

export function atScale(everyRun: number, full: number): number {
  return FULL_SCALE ? full : everyRun;
}
