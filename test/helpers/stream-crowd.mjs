// A crowd of event-stream subscribers in a process of its own, so that what a test measures is
// the gateway's fan-out, not the time the test spends parsing 500 sockets' messages on the
// gateway's own event loop. Driven over IPC: {connect: {url, token, n}} → {ready}; {report} →
// {latencies: ms from each frame-change's `at` to its arrival here, per subscriber and event}.
import { WebSocket } from 'ws';

const subs = [];

process.on('message', async (msg) => {
  if (msg.connect) {
    const { url, token, n } = msg.connect;
    for (let i = 0; i < n; i++) {
      const sub = { first: false, changes: [] };
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
      ws.on('message', (d) => {
        const receivedAt = Date.now();
        const e = JSON.parse(d.toString());
        sub.first = true;
        if (e.type === 'frame-change') sub.changes.push(receivedAt - Date.parse(e.at));
      });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      // A socket that fails later (its session ended, its gateway went away) is counted as it
      // stands, not a reason for the whole crowd to die with an unhandled 'error'.
      ws.on('error', () => undefined);
      sub.ws = ws;
      subs.push(sub);
    }
    while (!subs.every((s) => s.first)) await new Promise((r) => setTimeout(r, 20));
    process.send({ ready: true });
  }
  if (msg.count) process.send({ counts: subs.map((s) => s.changes.length) });
  if (msg.report) process.send({ latencies: subs.map((s) => s.changes) });
  if (msg.close) {
    for (const s of subs) s.ws.close();
    process.send({ closed: true });
  }
});
