// A load client in a process of its own: `connections` loops, each sending GET `url` with a bearer
// token over one keep-alive connection, back to back, for `ms`. Reports completed requests per second,
// non-200 answers and a sample of latencies over IPC. Plain node:http: no dependency, no pipelining.
import { Agent, request } from 'node:http';

const [url, token, connections, ms] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) });
const until = performance.now() + Number(ms);
let done = 0;
let failed = 0;
const latencies = [];

function get() {
  return new Promise((resolve) => {
    const t = performance.now();
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) done++;
        else failed++;
        if (latencies.length < 20000) latencies.push(performance.now() - t);
        resolve();
      });
    });
    req.on('error', () => {
      failed++;
      resolve();
    });
    req.end();
  });
}

async function loop() {
  while (performance.now() < until) await get();
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, loop));
const seconds = (performance.now() - started) / 1000;
process.send({ perSecond: Math.round(done / seconds), failed, latencies });
agent.destroy();
process.disconnect();
