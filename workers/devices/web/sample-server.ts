// Serves the sample app to this host's web devices, on loopback only, at /sample/. It is the web
// backend's default app: an idle device shows it, and a web session without app.url opens it.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { sampleAppDir } from '../../paths.js';

const FILES: Record<string, { file: string; type: string }> = {
  '/sample/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/sample/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/sample/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/sample/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export interface SampleServer {
  /** http://127.0.0.1:PORT (the origin devices are always allowed to open). */
  origin: string;
  url: string;
  close(): Promise<void>;
}

export async function startSampleServer(): Promise<SampleServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const entry = FILES[path];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !entry) {
      res.writeHead(
        path === '/' || path === '/sample' ? 302 : 404,
        path === '/' || path === '/sample' ? { location: '/sample/' } : { 'content-type': 'text/plain' },
      );
      res.end(path === '/' || path === '/sample' ? undefined : 'not found');
      return;
    }
    readFile(join(sampleAppDir, entry.file)).then(
      (body) => {
        res.writeHead(200, { 'content-type': entry.type, 'cache-control': 'no-store', 'content-length': body.length });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('sample app files missing');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/sample/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
