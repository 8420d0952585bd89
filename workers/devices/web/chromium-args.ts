// The switches the web device's Chromium starts with, on top of Playwright's own.
//
// Chromium keeps only the last --disable-features on its command line; an earlier one is dropped
// whole, without a word. Playwright passes a list of its own first, so a second switch of ours
// would silently turn all of Playwright's back on. Ours therefore carries Playwright's names too,
// from the mirror below; test/browser/chromium-args.test.ts reads the command line of a browser
// the installed Playwright starts and fails when the mirror falls behind an upgrade.

/** Playwright 1.65's --disable-features, as read off a browser it launched. */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

export const SIMFLEET_DISABLED_FEATURES = [
  // The compositor moves a touch scroll to where it predicts the finger will be at the next frame,
  // from the events' arrival times. On a loaded host those arrive in bursts, the prediction misses,
  // and the scroll ends where the finger never was: a 300 pt drag scrolled 251-320 pt (30 drags, 3
  // busy cores), 300-301 without it. Chromium's own scroll-distance tests turn it off the same way.
  // An agent's drag must move the content by what it says; a real finger's smoothness is not ours.
  'ResamplingScrollEvents',
];

const BASE_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
];

export function chromiumArgs(opts: { noSandbox: boolean }): string[] {
  const disabled = [...new Set([...PLAYWRIGHT_DISABLED_FEATURES, ...SIMFLEET_DISABLED_FEATURES])];
  return [...BASE_ARGS, `--disable-features=${disabled.join(',')}`, ...(opts.noSandbox ? ['--no-sandbox'] : [])];
}
