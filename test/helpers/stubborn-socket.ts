// A WebSocket client that completes the upgrade and then ignores everything, including close
// frames: the peer that makes a shutdown wait for its deadline.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export async function stubbornWebSocket(gatewayUrl: string, token: string): Promise<Socket> {
  const url = new URL('/v1/workers/connect', gatewayUrl);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(
    [
      `GET ${url.pathname} HTTP/1.1`,
      `Host: ${url.host}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      `Authorization: Bearer ${token}`,
      '',
      '',
    ].join('\r\n'),
  );
  const head = await new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
  if (!head.startsWith('HTTP/1.1 101')) throw new Error(`upgrade refused: ${head.split('\r\n')[0]}`);
  socket.on('data', () => undefined); // read and ignore: never answer a close frame
  socket.on('error', () => undefined);
  return socket;
}
