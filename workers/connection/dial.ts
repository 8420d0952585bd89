// Dialling the gateway over a real WebSocket. The worker always dials out, so a host behind NAT
// needs no inbound port. A refused upgrade carries the gateway's error body; it is read so the
// operator sees "INVALID_TOKEN" rather than "unexpected server response: 401".
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { DialError, type Dial } from './socket.js';

const FATAL_STATUSES = new Set([401, 403]);

export function workerConnectUrl(gatewayUrl: string): string {
  const url = new URL('/v1/workers/connect', gatewayUrl);
  url.protocol = url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:';
  return url.toString();
}

export function websocketDialer(opts: { gatewayUrl: string; token: string; maxPayloadBytes: number; handshakeTimeoutMs?: number }): Dial {
  const url = workerConnectUrl(opts.gatewayUrl);
  return () =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, {
        headers: { authorization: `Bearer ${opts.token}` },
        maxPayload: opts.maxPayloadBytes,
        handshakeTimeout: opts.handshakeTimeoutMs ?? 10000,
      });
      ws.once('open', () => resolve(ws));
      ws.once('unexpected-response', (_req, res: IncomingMessage) => {
        readBody(res).then((body) => {
          const error = parseError(body);
          reject(
            new DialError(
              error?.code ?? `HTTP_${res.statusCode ?? 0}`,
              error?.message ?? `the gateway refused the connection with HTTP ${res.statusCode ?? '?'}`,
              error?.hint,
              FATAL_STATUSES.has(res.statusCode ?? 0),
            ),
          );
          ws.terminate();
        }, reject);
      });
      ws.once('error', (err) => reject(new DialError('UNREACHABLE', `cannot reach the gateway at ${url}: ${err.message}`, undefined, false)));
    });
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 64 * 1024) chunks.push(c);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', () => resolve(''));
  });
}

function parseError(body: string): { code: string; message: string; hint?: string } | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; hint?: unknown } };
    if (typeof parsed.error?.code !== 'string') return undefined;
    return {
      code: parsed.error.code,
      message: String(parsed.error.message ?? ''),
      ...(typeof parsed.error.hint === 'string' ? { hint: parsed.error.hint } : {}),
    };
  } catch {
    return undefined;
  }
}
