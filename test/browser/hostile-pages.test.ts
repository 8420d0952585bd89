// Pages that make an action's outcome hard to judge, through the real API: one that never settles
// (an endless animation the tap starts), one that navigates away by itself while an action settles,
// and a target something is drawn over. Each gets an honest verdict or a typed refusal naming what
// was in the way, never `ok`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageFarm, pageFarm } from '../helpers/page-farm.js';

const HEAD =
  '<meta name="viewport" content="width=device-width, initial-scale=1"><style>body{margin:0;font:18px sans-serif;padding:20px}button{padding:12px 30px;margin:8px}</style>';
const PAGES: Record<string, string> = {
  'spin.html': `${HEAD}<h1>Upload</h1><button onclick="document.getElementById('s').style.display='block'">Start</button>
    <div id="s" style="display:none;width:60px;height:60px;background:#36c;animation:r 0.6s linear infinite"></div>
    <style>@keyframes r{to{transform:rotate(360deg)}}</style>`,
  'leaving.html': `${HEAD}<h1>Checkout</h1><p>This page moves on as soon as anything is ticked.</p><label><input type="checkbox" onchange="setTimeout(() => { location.href = 'away.html'; }, 150)"> Gift wrap</label>`,
  'away.html': `${HEAD}<h1>Somewhere else</h1><p>The page moved here on its own.</p>`,
  'banner.html': `${HEAD}<h1>News</h1><p style="height:600px">Stories</p><button>Subscribe</button>
    <div style="position:fixed;left:0;right:0;bottom:0;height:180px;background:#fff;border-top:1px solid #999;padding:16px"><p>We use cookies</p><button>Accept</button></div>`,
};

let rig: PageFarm;
let agent: PageFarm['agent'];

beforeAll(async () => {
  rig = await pageFarm(PAGES, 'hostile', 'banner.html');
  ({ agent } = rig);
}, 120_000);
afterAll(() => rig?.close());

const at = () => rig.at();
const open = (page: string) => rig.open(page);
const act = (body: Record<string, unknown>) => agent.call('runAction', { ...at(), body: body as never });

describe('hostile pages', () => {
  it('a tap that starts an endless animation is never ok, however often it is repeated: the screen never settles', async () => {
    for (let i = 0; i < 2; i++) {
      await open('spin.html');
      const r = await act({ action: 'tap', target: 'Start', timeoutMs: 1500 });
      expect(r.status).toBe(200);
      const body = r.body as { verdict: string; settle: { status: string } };
      expect(body.settle.status).toBe('not-settled');
      expect(body.verdict).toBe('unverified');
    }
  });

  it('a tap whose page navigates away while it settles is judged on where it ended, not on the box it ticked', async () => {
    await open('leaving.html');
    const r = await act({ action: 'tap', target: 'Gift wrap', role: 'checkbox' });
    expect(r.status).toBe(200);
    const body = r.body as { verdict: string; reason: string; evidence: { before: { id: string }; after: { id: string } } };
    // The checkbox did tick on the page that was left; the verdict is about the screen it ended on,
    // which this action has never led to: not "ok, the element changed state on the same screen".
    expect(body.evidence.after.id).not.toBe(body.evidence.before.id);
    expect(body.verdict, body.reason).toBe('unverified');
    expect(body.reason).not.toContain('changed state');
  });

  it('a target under a cookie banner is refused naming the banner, and nothing is tapped', async () => {
    await open('banner.html');
    const r = await act({ action: 'tap', target: 'Subscribe' });
    expect(r.status).toBe(422);
    const body = (r.body as { error: { code: string; message: string; hint: string; details: { coveredBy: { label: string } } } }).error;
    expect(body.code).toBe('NO_MATCH');
    expect(body.message).toContain('covered by');
    expect(body.details.coveredBy.label).toMatch(/We use cookies|Accept/);
    expect(body.hint).toContain('dismiss or move');
  });
});
