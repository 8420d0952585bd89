// Serves the field cache on loopback (test/helpers/static-server.ts) with every package at
// `/<name>@<version>/`, applies each app's rewrites to its package's text files, and maps each
// app's pages to URLs. Run on its own (`node --import tsx test/field/apps/serve.ts`) it prints the
// URLs and serves until stopped.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../../helpers/static-server.js';
import { cacheDir, isInstalled } from './install.js';
import { type FieldApp, loadManifest, type Manifest, type Rewrite } from './manifest.js';

export interface FieldPage {
  app: FieldApp;
  /** The page's path inside its package, as the manifest gives it. */
  page: string;
  url: string;
}

export interface FieldServer {
  origin: string;
  manifest: Manifest;
  pages: FieldPage[];
  /** The URL of one page of one app. */
  url: (appId: string, page?: string) => string;
  close: () => Promise<void>;
}

/** The rewrites that apply to each package's files, from every app that uses the package. */
function rewritesByPackage(m: Manifest): Map<string, Rewrite[]> {
  const by = new Map<string, Rewrite[]>();
  for (const app of m.apps) {
    if (!app.rewrites?.length) continue;
    const list = by.get(app.package) ?? [];
    for (const r of app.rewrites) if (!list.some((x) => x.from === r.from)) list.push(r);
    by.set(app.package, list);
  }
  return by;
}

/** Serves the cache; throws naming the first manifest package that is not installed. */
export async function serveField(opts: { cache?: string; manifest?: Manifest } = {}): Promise<FieldServer> {
  const cache = opts.cache ?? cacheDir();
  const manifest = opts.manifest ?? loadManifest();
  for (const app of manifest.apps) {
    for (const spec of [app.package, ...(app.uses ?? [])]) {
      if (!isInstalled(spec, cache)) throw new Error(`${spec} (app ${app.id}) is not in ${cache}: run node --import tsx test/field/apps/install.ts`);
    }
  }
  const rules = rewritesByPackage(manifest);
  const specs = [...rules.keys()];
  const server = await serveDirectory(cache, {
    rewrite: (path, body) => {
      const spec = specs.find((s) => path.startsWith(`${s}/`));
      if (!spec) return body;
      let out = body;
      for (const r of rules.get(spec)!) out = out.split(r.from).join(r.to);
      return out;
    },
  });
  const pages = manifest.apps.flatMap((app) => app.pages.map((page) => ({ app, page, url: `${server.origin}/${app.package}/${page}` })));
  return {
    origin: server.origin,
    manifest,
    pages,
    url: (appId, page) => {
      const found = pages.find((p) => p.app.id === appId && (page === undefined || p.page === page));
      if (!found) throw new Error(`no field page ${appId} ${page ?? ''}`);
      return found.url;
    },
    close: server.close,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const s = await serveField();
  for (const p of s.pages) console.log(`${p.app.id.padEnd(28)} ${p.url}`);
  console.log(`serving ${cacheDir()} at ${s.origin} (Ctrl-C stops)`);
}
