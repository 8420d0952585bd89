// A target something is drawn over: a tap at its point would land on the thing on top, so simfleet
// refuses it with NO_MATCH naming what is in the way (and how to clear it), never taps it. Pages of a
// few lines after common real patterns: a fixed cookie banner over the page's foot, a modal dialog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceError } from '../../workers/devices/backend.js';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import { locate, type Numbered, parseTarget } from '../../workers/understanding/refs.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;

beforeAll(async () => {
  ({ provider, device } = await webDevice());
}, 90_000);
afterAll(() => provider?.close());

async function screenOf(body: string, script = ''): Promise<Numbered> {
  await device.currentPageForTests.setContent(
    `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><style>body{margin:0;font:16px sans-serif}</style></head><body>${body}<script>${script}</script></body></html>`,
  );
  return { reading: readScreen(await device.tree(), 'web'), screen: { id: 'test', name: null } };
}

function refusal(target: string, current: Numbered): DeviceError {
  try {
    locate(parseTarget(target), current, current);
  } catch (err) {
    if (err instanceof DeviceError) return err;
    throw err;
  }
  throw new Error(`${target} was found; it should have been refused`);
}

const page = '<main style="padding:16px"><h1>News</h1><p style="height:640px">Stories</p><button style="padding:12px 40px">Subscribe</button></main>';

describe('a target with something drawn over it', () => {
  it('is refused, naming the cookie banner over it and what to do, and the banner is tappable', async () => {
    const banner =
      '<div style="position:fixed;left:0;right:0;bottom:0;height:160px;background:#fff;border-top:1px solid #ccc;padding:16px"><p>We use cookies</p><button>Accept</button></div>';
    const current = await screenOf(page + banner);
    const subscribe = current.reading.elements.find((e) => e.label === 'Subscribe')!;
    expect(subscribe.flags).toContain('covered');
    expect(subscribe.tap).toBeNull();
    const err = refusal('Subscribe', current);
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toMatch(/covered by something drawn over it \(nearest on top: @\d+ (text "We use cookies"|button "Accept")\)/);
    const by = (err.details as { coveredBy: { ref: number; label: string } }).coveredBy;
    expect(by.ref).toBeGreaterThan(0);
    expect(err.hint).toContain('dismiss or move what is drawn over it');
    // The banner's own button is there to clear it.
    expect(locate(parseTarget('Accept'), current, current).how).toBe('label');
  });

  it('is refused behind a modal dialog (the page behind is inert and out of the tree), naming the dialog', async () => {
    const dialog =
      '<dialog id="d" aria-label="Delete file?" style="width:260px;padding:20px"><p>Delete file?</p><button>Cancel</button><button>Delete</button></dialog>';
    const current = await screenOf(page + dialog, "document.getElementById('d').showModal()");
    expect(current.reading.regions.modal).not.toBeNull();
    const err = refusal('News', current);
    expect(err.code).toBe('NO_MATCH');
    expect(err.message).toContain('dialog "Delete file?" is open over the screen');
    expect(err.hint).toContain('close or finish dialog "Delete file?" first');
    expect(locate(parseTarget('Cancel'), current, current).how).toBe('label');
  });

  it('is still sent to scroll when it is only below the screen', async () => {
    const current = await screenOf('<main style="padding:16px"><p style="height:2000px">Long</p><button>Far away</button></main>');
    const err = refusal('Far away', current);
    expect(err.message).toContain('below the screen');
    expect(err.hint).toBe('scroll it into view first');
  });

  it("is refused under a clear layer that takes taps (a toast's transparent mask), and a label's own overlay does not count", async () => {
    // jQuery WeUI's toast: a transparent fixed mask over the whole page while the toast shows; a tap
    // on a link under it lands on the mask and does nothing.
    const links = '<a href="#a" style="display:block;padding:16px">Show loading</a><a href="#b" style="display:block;padding:16px">Show toast</a>';
    const toast =
      '<div style="position:fixed;inset:0;z-index:1000;background:transparent"></div><div style="position:fixed;z-index:5000;top:300px;left:140px;width:110px;background:rgba(17,17,17,0.7);color:#fff"><p>Plain text</p></div>';
    // Its demo listens for clicks on the document and on the body (jQuery's delegation, FastClick): no excuse for the mask.
    const current = await screenOf(links + toast, "document.addEventListener('click', () => {}); document.body.addEventListener('click', () => {});");
    const link = current.reading.elements.find((e) => e.label === 'Show loading')!;
    expect(link.flags).toContain('covered');
    expect(refusal('Show loading', current).message).toMatch(/covered by something drawn over it/);
    // A checkbox row whose label carries a clear overlay of its own (a ripple layer): the tap still ticks it.
    const row =
      '<label style="position:relative;display:block;padding:16px"><input type="checkbox"> Agree<span style="position:absolute;inset:0;background:transparent"></span></label>';
    const agree = (await screenOf(row)).reading.elements.find((e) => e.role === 'checkbox')!;
    expect(agree.flags).not.toContain('covered');
    expect(agree.tap).not.toBeNull();
    // Phonon's floating label: a label for the field, laid over it; a tap on it focuses the field.
    const floating =
      '<div style="position:relative;padding:16px"><input id="f1" type="email" style="width:300px;height:40px"><label for="f1" style="position:absolute;left:16px;top:16px;width:300px;height:40px">First Name</label></div>';
    const field = (await screenOf(floating)).reading.elements.find((e) => e.role === 'textfield')!;
    expect(field.flags).not.toContain('covered');
    expect(field.label).toBe('First Name');
  });

  it('leaves a field drawn over the top bar tappable (a side panel over the page, its search field level with the bar)', async () => {
    // jQuery Mobile's demo search panel: a fixed panel from the right, over the page's fixed header.
    const header =
      '<header style="position:fixed;top:0;left:0;right:0;height:56px;background:#eee;z-index:10"><h1 style="margin:12px;font-size:20px">Demos</h1></header>';
    const body = '<main style="padding-top:64px"><p style="height:1200px">Lots of content</p></main>';
    const panel =
      '<aside style="position:fixed;top:0;right:0;width:280px;height:100%;background:#fff;z-index:20;padding:8px"><input type="search" placeholder="Search demos" style="width:240px;height:36px"></aside>';
    const current = await screenOf(header + body + panel);
    const field = current.reading.elements.find((e) => e.role === 'textfield')!;
    expect(field.flags).not.toContain('covered');
    expect(locate(parseTarget('Search demos'), current, current).how).toBe('label');
    // The header's own words, under the panel where it overlaps, are still the header's.
    expect(current.reading.elements.find((e) => e.label === 'Demos')).toBeDefined();
  });
});
