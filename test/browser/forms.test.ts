// Scrolling and forms taller than the screen, on real Chromium and the sample app through the API:
// a scroll by N points lands within 5 % of N (checked against the page's own scrollTop, not the
// scroll sensor that reports it), scrolling to an element the tree does not hold yet, and a long
// form filled and submitted in one call, checked against what the app says it received; fallback
// targets, waits and value asserts in a run of steps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { webFarm } from '../helpers/web-device.js';

let farm: Farm;
let provider: WebProvider;
let agent: Awaited<ReturnType<Farm['token']>>;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  agent = await farm.token('agent', 'forms');
}, 120_000); // a farm, a worker and Chromium starting beside another browser suite on 2 cores once took over 60 s in CI
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

const page = () => provider.device('web-1')!.currentPageForTests;
const scrollTop = () => page().evaluate(() => (document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement).scrollTop);
const release = async (id: string) => {
  await agent.call('releaseSession', { params: { sessionId: id } });
  await waitFor('device free', async () => ((await farm.admin.call('listDevices')).body.devices[0]?.state === 'available' ? true : undefined), 20_000);
};

describe('scrolling', () => {
  it('scrolls by a distance without momentum: 300 pt lands at 300 ± 15, and the sensor reports it', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      // The long form: static content over two screens tall, so every distance below fits in it.
      const open = await agent.call('runSteps', {
        ...at,
        body: {
          steps: [
            { action: 'tap', target: 'Settings', role: 'tab' },
            { action: 'scroll', to: 'Long form' },
            { action: 'tap', target: 'Long form' },
          ],
        },
      });
      expect(open.body.divergence).toBeNull();
      const moves: { asked: number; moved: number; reported: number | null }[] = [];
      const range = await page().evaluate(() => {
        const el = document.querySelector('.stack:not([hidden]) .screen:not([hidden]) .content') as HTMLElement;
        return el.scrollHeight - el.clientHeight;
      });
      expect(range).toBeGreaterThan(850); // room for every move below without reaching an end
      for (const [direction, distance] of [
        ['down', 300],
        ['down', 300],
        ['up', 150],
        ['up', 300],
        ['down', 500],
      ] as const) {
        const before = await scrollTop();
        const res = await agent.call('runAction', { ...at, body: { action: 'scroll', direction, distance } });
        expect(res.status, res.text.slice(0, 300)).toBe(200);
        const moved = (await scrollTop()) - before;
        moves.push({ asked: direction === 'down' ? distance : -distance, moved, reported: res.body.scrolled.movedPt });
        expect(res.body.verdict).toBe('ok');
        expect(res.body.reason).toMatch(/content moved/);
      }
      console.log(`scroll by: ${moves.map((m) => `${m.asked} → ${m.moved} (sensor ${m.reported} the way asked)`).join(', ')}`);
      for (const m of moves) {
        expect(Math.abs(m.moved - m.asked), `asked ${m.asked}, moved ${m.moved}`).toBeLessThanOrEqual(Math.abs(m.asked) * 0.05);
        expect(Math.abs(m.reported! - Math.abs(m.moved)), `sensor said ${m.reported}, moved ${m.moved}`).toBeLessThanOrEqual(Math.abs(m.asked) * 0.05);
      }
    } finally {
      await release(id);
    }
  });

  it('scrolls until an element shows, says the end when the content stops, and never guesses', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      // Row 40 is not loaded yet (the inbox loads 20 at a time as it scrolls): found by moving, not by lookup.
      const far = await agent.call('runAction', { ...at, body: { action: 'scroll', to: '#message-40', maxScrolls: 20 } });
      expect(far.status, far.text.slice(0, 300)).toBe(200);
      expect(far.body.target).toMatchObject({ id: 'message-40' });
      expect(far.body.target.tap).not.toBeNull();
      const missing = await agent.call('runAction', { ...at, body: { action: 'scroll', to: 'No such row anywhere', direction: 'up', maxScrolls: 30 } });
      expect(missing.status).toBe(422);
      expect(missing.body.error.code).toBe('NO_MATCH');
      expect(missing.body.error.message).toMatch(/the end/);
    } finally {
      await release(id);
    }
  }, 120_000); // alone it takes about 33 s here; beside another browser suite on two cores it ran out 60 s
});

describe('a form taller than the screen', () => {
  it('fills every field a viewport at a time and submits, in one call', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const fields = [
        { target: 'Full name', value: 'Grace Hopper' },
        { target: 'Email', value: 'grace@example.com' },
        { target: 'Age', value: '85' },
        { target: 'Country', value: 'Kenya' },
        { target: 'Comments', value: 'Compilers, and a moth.' },
        { target: 'I agree to the terms', value: 'yes' },
      ];
      const steps = [
        { action: 'tap', target: 'Settings', role: 'tab' },
        { action: 'scroll', to: 'Long form' },
        { action: 'tap', target: 'Long form' },
        { action: 'fill', fields, submit: 'Submit', allowDestructive: true },
      ];
      const t0 = performance.now();
      const res = await agent.call('runSteps', { ...at, body: { steps } });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.body.divergence, JSON.stringify(res.body.divergence)?.slice(0, 600)).toBeNull();
      const fill = res.body.steps[3];
      console.log(`long form: ${fill.detail} (${Math.round(performance.now() - t0)} ms for the whole call)`);
      expect(fill.fill).toMatchObject({ missing: [] });
      expect(fill.fill.filled).toHaveLength(fields.length);
      expect(fill.fill.viewports).toBeGreaterThanOrEqual(3); // the form is taller than two screens
      expect(res.body.screen.name).toBe('Submitted');
      // What the app received, in its own words.
      const shown = await page().evaluate(() =>
        [...document.querySelectorAll('.stack:not([hidden]) .screen:not([hidden]) dl.result dt')].map((dt) => [
          dt.textContent,
          dt.nextElementSibling!.textContent,
        ]),
      );
      expect(Object.fromEntries(shown)).toMatchObject({
        'Full name': 'Grace Hopper',
        Email: 'grace@example.com',
        Age: '85',
        Country: 'Kenya',
        Comments: 'Compilers, and a moth.',
        'I agree to the terms': 'yes',
      });
    } finally {
      await release(id);
    }
  });

  it('reports the fields it could not find, with the form as it is, instead of a green run', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const steps = [
        { action: 'tap', target: 'Settings', role: 'tab' },
        { action: 'scroll', to: 'Long form' },
        { action: 'tap', target: 'Long form' },
        {
          action: 'fill',
          fields: [
            { target: 'Full name', value: 'Ada' },
            { target: 'Shoe size', value: '38' },
          ],
        },
      ];
      const res = await agent.call('runSteps', { ...at, body: { steps } });
      expect(res.status).toBe(200);
      expect(res.body.divergence).toMatchObject({ index: 3, code: 'selector-miss', resume: { allowed: true } });
      expect(res.body.divergence.message).toMatch(/Shoe size: no field of that name/);
      expect(res.body.steps[3].fill).toMatchObject({ filled: ['Full name'], missing: ['Shoe size'] });
    } finally {
      await release(id);
    }
  });
});

describe('fallbacks, waits and asserts', () => {
  it('falls back to the next target only when one matches nothing, and checks values and waits', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const steps = [
        { action: 'tap', target: 'Preferences', or: ['Settings'], role: 'tab' },
        { action: 'wait', for: 'visible', target: 'Notifications', timeoutMs: 3000 },
        { action: 'tap', target: 'Search', role: 'tab' },
        { action: 'type', target: '#search-field', text: 'grace' },
        { action: 'assert', that: 'value', target: '#search-field', value: 'grace' },
        { action: 'clear', target: '#search-field' },
        { action: 'assert', that: 'value', target: '#search-field', value: '' },
        { action: 'assert', that: 'not-visible', target: 'Notifications' },
      ];
      const res = await agent.call('runSteps', { ...at, body: { steps } });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.body.divergence, JSON.stringify(res.body.divergence)?.slice(0, 400)).toBeNull();
      expect(res.body.steps[0].result.target).toMatchObject({ label: 'Settings', role: 'tab' });
      expect(res.body.steps[3].verdict).toBe('ok'); // the field's value changed: that is the type's outcome
      // A failed assert stops the run with the screen as it is, and nothing after it runs.
      const wrong = await agent.call('runSteps', {
        ...at,
        body: {
          steps: [
            { action: 'assert', that: 'value', target: '#search-field', value: 'ada' },
            { action: 'tap', target: 'Inbox', role: 'tab' },
          ],
        },
      });
      expect(wrong.body.divergence).toMatchObject({ index: 0, code: 'assertion-failed', resume: { from: 0 } });
      expect(wrong.body.divergence.message).toMatch(/holds "", not "ada"/);
      expect(wrong.body.steps).toHaveLength(1);
      // Two tab labels named as fallbacks where the first is ambiguous: refused, not passed over.
      const amb = await agent.call('runSteps', { ...at, body: { steps: [{ action: 'tap', target: 'Se', or: ['Inbox'] }] } });
      expect(amb.body.divergence).toMatchObject({ index: 0, code: 'ambiguous' });
    } finally {
      await release(id);
    }
  });

  it('refuses malformed steps before anything runs, naming the field', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const cases: [unknown, RegExp][] = [
        [{ action: 'type' }, /text/],
        [{ action: 'tap' }, /target/],
        [{ action: 'scroll' }, /direction|to/],
        [{ action: 'drag', target: 'Inbox' }, /to/],
        [{ action: 'fly', target: 'Inbox' }, /action/],
        [{ action: 'tap', target: 'Inbox', colour: 'red' }, /colour|unevaluated|additional/],
      ];
      for (const [body, field] of cases) {
        const res = await agent.call('runAction', { ...at, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
        expect(`${res.body.error.message} ${JSON.stringify(res.body.error.details ?? {})}`, JSON.stringify(body)).toMatch(field);
      }
      const bad = await agent.call('runSteps', {
        ...at,
        body: {
          steps: [
            { action: 'tap', target: 'Inbox' },
            { action: 'assert', that: 'value', target: 'x', value: 1 },
          ],
        },
      });
      expect(bad.status).toBe(400);
      const malformed = await agent.call('runSteps', { ...at, rawBody: '{"steps": [', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('MALFORMED_JSON');
      // Nothing ran: the screen is still the inbox it started on.
      expect((await agent.call('getScreen', { ...at, headers: { accept: 'application/json' } })).body.screen.name).toBe('Inbox');
    } finally {
      await release(id);
    }
  });
});
