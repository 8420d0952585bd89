// What `axe --version` prints, read. AXe's build plugin (Plugins/VersionPlugin) takes the version
// from AXE_VERSION (release builds: "1.8.0", staging releases "0.0.0-staging.N"), else from
// `git describe --tags --always --dirty` (a build from source: "v1.8.0-3-g52a7bff-dirty", or
// "staging-main-58-51cfaf7-1-g52a7bff-dirty" on the staging branch, or a bare commit hash), else
// "dev". Only a release number says which features the binary has; every other form is a build
// whose features are asked of its own help text (see ui-tool.ts).

export type AxeVersion =
  /** A release (or a source build that names the release it is based on): features follow the number. */
  | { kind: 'release'; version: string }
  /** A staging or source build: its number says nothing about its features. */
  | { kind: 'build'; label: string };

const SEMVER = /(?:^|[^\w.])v?(\d+\.\d+(?:\.\d+)?)(?![\d.])/;

export function readAxeVersion(text: string): AxeVersion | null {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return null;
  // "0.0.0-staging.N": a staging release, numbered 0.0.0 because it is not one.
  if (/^v?0\.0\.0(?:[-+]|$)/.test(line)) return { kind: 'build', label: line };
  const release = SEMVER.exec(line)?.[1];
  if (release) return { kind: 'release', version: release };
  // git describe of the staging branch, a bare commit hash, or the plugin's fallback.
  if (/^(?:staging|main|dev\b)/i.test(line) || /^[0-9a-f]{7,40}(?:-dirty)?$/.test(line)) return { kind: 'build', label: line };
  return null;
}

/** The version a tool's help text shows an option in: `--point` appears in `describe-ui --help` from AXe 1.6.0. */
export const AXE_POINT_SINCE = '1.6.0';

/** What a build's help texts offer: a held touch (`touch --down --up --delay`) and the hit test (`describe-ui --point`). */
export function axeFeatures(touchHelp: string, describeHelp: string): { press: boolean; hitTest: boolean } {
  return { press: /--delay\b/.test(touchHelp) && /--down\b/.test(touchHelp), hitTest: /--point\b/.test(describeHelp) };
}
