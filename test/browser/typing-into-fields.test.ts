// `type` on pages that keep a tap from focusing the field, as real mobile kits do (the field run of
// 2026-12-07): Ratchet's modals.js prevents the default of every touchend on the window; FastClick
// (bundled by jQuery WeUI and Mobile Angular UI) cancels the touchend and, on an iPhone's user agent,
// "focuses" with setSelectionRange, which only iOS takes as focus; overthrow (Mobile Angular UI) makes
// every input untouchable while a touch lasts. The keys then went to the page's body and the verdict
// said no-visible-change. Now the focus is checked after the tap and the field focused directly (and
// said so); a field that will not take the focus gets nothing typed and a verdict that says so.
// And `type` into a select chooses the option its text names, or refuses listing the options.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { type PageFarm, pageFarm } from '../helpers/page-farm.js';

const HEAD =
  '<meta name="viewport" content="width=device-width, initial-scale=1"><style>body{margin:0;font:18px sans-serif;padding:20px}input,select{font:18px sans-serif;padding:10px;width:300px;display:block;margin:8px 0 20px}</style>';
/** Counts the keys that reach the body itself (typed into no field). */
const BODY_KEYS = `<script>window.bodyKeys = 0; document.addEventListener('keydown', (e) => { if (e.target === document.body) window.bodyKeys++; });</script>`;
const PAGES: Record<string, string> = {
  // Ratchet 2.0.4's modals.js: `window.addEventListener('touchend', ...)` ends with event.preventDefault() for every touch.
  'cancelled.html': `${HEAD}${BODY_KEYS}<h1>Movie finder</h1><input type="search" placeholder="Search">
    <script>window.addEventListener('touchend', (e) => { e.preventDefault(); });</script>`,
  // FastClick 1.0 on an iPhone's user agent: touchend cancelled, the field "focused" by setSelectionRange, a synthetic click sent.
  'fastclick.html': `${HEAD}${BODY_KEYS}<h1>Log in</h1><input type="text" placeholder="User name"><input type="password" placeholder="Password">
    <script>document.addEventListener('touchend', (e) => {
      const t = e.target;
      if (t.tagName !== 'INPUT') return;
      e.preventDefault();
      t.setSelectionRange(t.value.length, t.value.length);
      t.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    }, true);</script>`,
  // overthrow (in Mobile Angular UI 1.3): inputs made pointer-events: none from touchstart, so the tap lands on their parent.
  'untouchable.html': `${HEAD}${BODY_KEYS}<h1>Forms</h1><div class="group"><label>Email</label><input type="email" placeholder="Enter email"></div>
    <script>document.addEventListener('touchstart', () => { for (const i of document.querySelectorAll('input')) i.style.pointerEvents = 'none'; }, true);</script>`,
  // A field that gives the focus straight back: nothing may be typed, least of all into the body.
  'refuses.html': `${HEAD}${BODY_KEYS}<h1>Locked</h1><input type="text" placeholder="Code" onfocus="this.blur()">`,
  'select.html': `${HEAD}<h1>Profile</h1>
    <label for="g">Gender</label><select id="g"><option>Male</option><option>Female</option><option>Other</option><option disabled>Unknown</option></select>
    <label for="f">Fruit</label>
    <div style="position:relative;width:300px;height:44px;margin:8px 0 20px">
      <span id="shown" style="display:block;padding:10px;border:1px solid #999">apple</span>
      <select id="f" style="position:absolute;left:0;top:0;width:100%;height:100%;opacity:0;margin:0"
        onchange="document.getElementById('shown').textContent = this.selectedOptions[0].textContent"><option>apple</option><option>Apple</option><option>Banana</option></select>
    </div>
    <div role="listbox" aria-label="Size" style="width:300px">
      ${['Small', 'Medium', 'Large'].map((s, i) => `<div role="option" aria-selected="${i === 0}" style="padding:10px;border:1px solid #ccc" onclick="for (const o of this.parentNode.children) o.setAttribute('aria-selected', String(o === this))">${s}</div>`).join('')}
    </div>`,
};

let rig: PageFarm;
let provider: WebProvider;
let agent: PageFarm['agent'];

beforeAll(async () => {
  rig = await pageFarm(PAGES, 'typing', 'cancelled.html');
  ({ provider, agent } = rig);
}, 120_000);
afterAll(() => rig?.close());

const at = () => rig.at();
const open = (page: string) => rig.open(page);
interface Answer {
  verdict: string;
  reason: string;
  evidence: { focus?: { how: string; was: string; field?: string }; choice?: { option: string; was: string | null; how: string } };
  error?: { code: string; message: string; hint?: string; details?: { options?: string[] } };
}
async function act(body: Record<string, unknown>): Promise<{ status: number; body: Answer }> {
  const r = await agent.call('runAction', { ...at(), body: body as never });
  return { status: r.status, body: r.body as Answer };
}
const dom = (expr: string) => provider.device('web-1')!.currentPageForTests.evaluate(expr);

describe('typing into a field whose page keeps the tap from focusing it', () => {
  it('a page that cancels every touchend (Ratchet): the field is focused directly, the text typed, ok, and the evidence says how', async () => {
    await open('cancelled.html');
    const r = await act({ action: 'type', target: 'Search', text: 'Skyfall' });
    expect(r.status).toBe(200);
    expect(await dom(`document.querySelector('input').value`)).toBe('Skyfall');
    expect(await dom('window.bodyKeys')).toBe(0);
    expect(r.body.verdict, r.body.reason).toBe('ok');
    expect(r.body.evidence.focus).toEqual({ how: 'direct', was: 'body', field: 'input[type=search]' });
    expect(r.body.reason).toContain('focused directly');
  });

  it("FastClick on an iPhone's user agent (focus by setSelectionRange): both fields take their text, the second moved from the first", async () => {
    await open('fastclick.html');
    const user = await act({ action: 'type', target: 'User name', text: 'weuser' });
    const pass = await act({ action: 'type', target: 'Password', text: 'secret' });
    expect(await dom(`[...document.querySelectorAll('input')].map((i) => i.value).join()`)).toBe('weuser,secret');
    expect(await dom('window.bodyKeys')).toBe(0);
    expect(user.body.verdict, user.body.reason).toBe('ok');
    expect(pass.body.verdict, pass.body.reason).toBe('ok');
    expect(pass.body.evidence.focus?.how).toBe('direct');
  });

  it('inputs made untouchable while a touch lasts (overthrow): the field under the point is found by its box and takes the text', async () => {
    await open('untouchable.html');
    const r = await act({ action: 'type', target: 'Email', text: 'me@example.org' });
    expect(await dom(`document.querySelector('input').value`)).toBe('me@example.org');
    expect(await dom('window.bodyKeys')).toBe(0);
    expect(r.body.verdict, r.body.reason).toBe('ok');
    expect(r.body.evidence.focus?.how).toBe('direct');
  });

  it('a field that will not keep the focus: nothing is typed anywhere, and the verdict says the text never arrived', async () => {
    await open('refuses.html');
    const r = await act({ action: 'type', target: 'Code', text: '1234' });
    expect(r.status).toBe(200);
    expect(await dom('window.bodyKeys')).toBe(0);
    expect(await dom(`document.querySelector('input').value`)).toBe('');
    expect(r.body.verdict).toBe('not-delivered');
    expect(r.body.reason).toContain('nothing was typed');
    expect(r.body.evidence.focus?.how).toBe('none');
  });
});

describe('typing into a select chooses the option its text names', () => {
  it('a native select: the exact option, then one named in other case; ok only with the select showing it', async () => {
    await open('select.html');
    const r = await act({ action: 'type', target: 'Gender', text: 'Female' });
    expect(r.status, JSON.stringify(r.body.error)).toBe(200);
    expect(await dom(`document.getElementById('g').value`)).toBe('Female');
    expect(r.body.verdict, r.body.reason).toBe('ok');
    expect(r.body.evidence.choice).toEqual({ option: 'Female', was: 'Male', how: 'native' });
    const loose = await act({ action: 'type', target: 'Gender', text: 'other' });
    expect(await dom(`document.getElementById('g').value`)).toBe('Other');
    expect(loose.body.verdict, loose.body.reason).toBe('ok');
  });

  it('an option named by nothing, or disabled, is refused with the options listed, and nothing is chosen', async () => {
    await open('select.html');
    const none = await act({ action: 'type', target: 'Gender', text: 'Nobody' });
    expect(none.body.error?.code).toBe('NO_MATCH');
    expect(none.body.error?.details?.options).toEqual(['Male', 'Female', 'Other', 'Unknown (disabled)']);
    expect(none.body.error?.hint).toContain('"Female"');
    const off = await act({ action: 'type', target: 'Gender', text: 'Unknown' });
    expect(off.body.error?.code).toBe('NO_MATCH');
    expect(off.body.error?.message).toContain('disabled');
    expect(await dom(`document.getElementById('g').value`)).toBe('Male');
  });

  it('a select laid transparent over its styled face: two options equal but for case are ambiguous unless the text is one of them exactly', async () => {
    await open('select.html');
    const two = await act({ action: 'type', target: 'Fruit', text: 'APPLE' });
    expect(two.body.error?.code).toBe('AMBIGUOUS');
    expect(two.body.error?.details?.options).toEqual(['apple', 'Apple', 'Banana']);
    const exact = await act({ action: 'type', target: 'Fruit', text: 'Apple' });
    expect(exact.status, JSON.stringify(exact.body.error)).toBe(200);
    expect(await dom(`document.getElementById('f').selectedIndex`)).toBe(1);
    expect(await dom(`document.getElementById('shown').textContent`)).toBe('Apple');
    expect(exact.body.verdict, exact.body.reason).toBe('ok');
  });

  it('a listbox the page draws, its options on the screen: the option is tapped and ok once it is the selected one', async () => {
    await open('select.html');
    const r = await act({ action: 'type', target: 'Size', text: 'Large' });
    expect(r.status, JSON.stringify(r.body.error)).toBe(200);
    expect(await dom(`[...document.querySelectorAll('[role=option]')].find((o) => o.getAttribute('aria-selected') === 'true').textContent`)).toBe('Large');
    expect(r.body.evidence.choice).toEqual({ option: 'Large', was: 'Small', how: 'tap' });
    expect(r.body.verdict, r.body.reason).toBe('ok');
  });
});
