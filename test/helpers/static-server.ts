// A static file server on loopback for third-party web UIs installed from the npm registry (test
// data nobody here wrote). Serves one directory; nothing outside it. A path ending in `/` serves
// that folder's index.html. `rewrite` may change a text file's body on its way out (a file it leaves alone goes out byte for byte) (the field
// suite points a page's CDN addresses at pinned packages on this same server).
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, relative, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.map': 'application/json',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.eot': 'application/vnd.ms-fontobject',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
};

/** Files whose body `rewrite` sees, as UTF-8 text. */
const TEXT = new Set(['.html', '.htm', '.css', '.js', '.mjs', '.json']);

export async function serveDirectory(
  root: string,
  opts: { rewrite?: (path: string, body: string) => string } = {},
): Promise<{ origin: string; close: () => Promise<void> }> {
  const base = normalize(root + sep);
  const server: Server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return void res.writeHead(400).end();
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(base, path));
    if (!file.startsWith(base)) return void res.writeHead(403).end();
    const ext = extname(file).toLowerCase();
    readFile(file).then(
      (raw) => {
        const rel = relative(base, file).split(sep).join('/');
        let body = raw;
        if (opts.rewrite && TEXT.has(ext)) {
          const text = raw.toString('utf8');
          const changed = opts.rewrite(rel, text);
          if (changed !== text) body = Buffer.from(changed);
        }
        res.writeHead(200, { 'content-type': TYPES[ext] ?? 'application/octet-stream' }).end(body);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((r) => server.close(() => r())) };
}
