// The delivery probe on real Chromium: an input that changes nothing is told apart by whether the
// page received it — no visible change when it did, not delivered when it did not (inputs swallowed
// on the way, as when a simulator's input service detaches) — and three in a row make the device
// suspect. Escalations and verdicts carry which sensors answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { webFarm } from '../helpers/web-device.js';

let farm: Farm;
let provider: WebProvider;
let agent: Awaited<ReturnType<Farm['token']>>;
let id: string;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  agent = await farm.token('agent', 'delivery');
  id = await settledSession(agent);
  const tab = await agent.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target: 'Settings', role: 'tab' } });
  expect(tab.status, tab.text).toBe(200);
}, 90_000);
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

const tap = (target: string) => agent.call('runAction', { params: { sessionId: id }, body: { action: 'tap', target, timeoutMs: 1500 } });

describe('the delivery probe', () => {
  it('calls a tap the page received and ignored no visible change, and says it arrived', async () => {
    const r = await tap('CONNECTIVITY');
    expect(r.status, r.text).toBe(200);
    expect(r.body.verdict).toBe('no-visible-change');
    expect(r.body.evidence.delivery).toEqual({ counted: true, delivered: true, streak: 0, suspect: false });
    expect(r.body.evidence.sensors).toMatchObject({ tree: expect.any(Number), ocr: null });
  });

  it('calls input the page never received not delivered, makes the device suspect after three, and stops a run on it', async () => {
    provider.device('web-1')!.swallowInput = true;
    try {
      const streak: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await tap('Wi-Fi');
        expect(r.status, r.text).toBe(200);
        expect(r.body.verdict).toBe('not-delivered');
        expect(r.body.reason).toContain('received no input');
        expect(r.body.evidence.delivery).toMatchObject({ counted: true, delivered: false });
        streak.push(r.body.evidence.delivery.streak);
        expect(r.body.evidence.delivery.suspect).toBe(i === 2);
      }
      expect(streak).toEqual([1, 2, 3]);
      const run = await agent.call('runSteps', { params: { sessionId: id }, body: { steps: [{ action: 'tap', target: 'Bluetooth', timeoutMs: 1500 }] } });
      expect(run.status, run.text).toBe(200);
      expect(run.body.divergence).toMatchObject({ code: 'not-delivered' });
      expect(run.body.divergence.message).toContain('suspect');
    } finally {
      provider.device('web-1')!.swallowInput = false;
    }
    // Input arrives again: the streak ends.
    const back = await tap('Wi-Fi');
    expect(back.body.verdict).not.toBe('not-delivered');
    expect(back.body.evidence.delivery).toMatchObject({ delivered: true, streak: 0, suspect: false });
  });
});
