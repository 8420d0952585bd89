// The field apps' manifest (manifest.json beside this file): real third-party mobile web apps and
// UI-kit demo pages, each from one npm package pinned to an exact version, and the pages of it to
// open. install.ts puts the packages in a cache outside git, serve.ts serves the cache on loopback.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One literal text substitution in the files of an app's package as they are served. */
export interface Rewrite {
  /** The text as the package has it, e.g. a CDN address `//ajax.googleapis.com/…/angular.min.js`. */
  from: string;
  /** What is served instead; a package in the cache is at `/<name>@<version>/`. */
  to: string;
  /** Why (one line). */
  why?: string;
}

export interface FieldApp {
  id: string;
  /** `name@version`, an exact version. */
  package: string;
  /** As the package states it (its package.json or licence file). */
  licence: string;
  /** Where the package's source lives. */
  source: string;
  kind: 'todo' | 'form' | 'tabs-navigation' | 'long-list' | 'dialog-sheet' | 'kitchen-sink' | 'picker';
  description: string;
  /** Paths inside the package to open, optionally with a `#fragment` (a hash-routed screen). */
  pages: string[];
  /** Other pinned packages that the pages load through `rewrites` (`name@version`). */
  uses?: string[];
  rewrites?: Rewrite[];
}

export interface Manifest {
  notes: string[];
  apps: FieldApp[];
}

export const MANIFEST_PATH = fileURLToPath(new URL('./manifest.json', import.meta.url));

const EXACT = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*@\d+\.\d+\.\d+(-[\w.]+)?$/i;

/** `name@1.2.3` → ['name', '1.2.3'], `@scope/name@1.2.3` → ['@scope/name', '1.2.3']. */
export function splitSpec(spec: string): [name: string, version: string] {
  const at = spec.lastIndexOf('@');
  return [spec.slice(0, at), spec.slice(at + 1)];
}

/** Reads and checks the manifest: unique ids, exact versions, at least one page per app. */
export function loadManifest(path = MANIFEST_PATH): Manifest {
  const m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  const ids = new Set<string>();
  for (const app of m.apps) {
    if (ids.has(app.id)) throw new Error(`manifest: app id ${app.id} twice`);
    ids.add(app.id);
    for (const spec of [app.package, ...(app.uses ?? [])]) {
      if (!EXACT.test(spec)) throw new Error(`manifest: ${app.id}: "${spec}" is not name@exact-version`);
    }
    if (!app.pages.length) throw new Error(`manifest: ${app.id} has no page`);
  }
  return m;
}

/** Every package the manifest needs, once each. */
export function manifestPackages(m: Manifest): string[] {
  return [...new Set(m.apps.flatMap((a) => [a.package, ...(a.uses ?? [])]))].sort();
}
