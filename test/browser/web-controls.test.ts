// How UI kits build controls the accessibility tree alone misreads, each on a page of a few lines
// written after the markup of a real kit (named at each case): a radio pushed off the page and drawn
// by its label (Ionic, WeUI), a plain element with a click handler of its own (a picker's rows), an
// icon-font glyph in a name, a date input. Each asks the outline what an agent would read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Element } from '../../workers/understanding/elements.js';
import { readScreen } from '../../workers/understanding/screen.js';
import { webDevice } from '../helpers/web-device.js';

let provider: WebProvider;
let device: WebDevice;

beforeAll(async () => {
  ({ provider, device } = await webDevice());
}, 90_000);
afterAll(() => provider?.close());

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';

/** The page's elements as the outline has them (those a tap can reach). */
async function elementsOf(body: string, script = ''): Promise<Element[]> {
  const page = device.currentPageForTests;
  await page.setContent(
    `<!doctype html><html><head>${VIEWPORT}<style>body{margin:0;font:16px sans-serif}</style></head><body>${body}<script>${script}</script></body></html>`,
  );
  return readScreen(await device.tree(), 'web').elements.filter((e) => e.tap !== null);
}

const lines = (els: Element[]) => els.map((e) => `${e.role} ${e.label}${e.states.checked === undefined ? '' : e.states.checked ? ' on' : ' off'}`);

describe('controls UI kits build', () => {
  it('puts a radio pushed off the page (left: -9999px) where its label draws it, with its state', async () => {
    // Ionic 1's ion-radio and WeUI's weui-check: the input far off to the left, the label the row.
    const row = (name: string, checked = '') =>
      `<label style="display:block;padding:14px;background:#fff;border-bottom:1px solid #ddd"><input type="radio" name="fw" ${checked} style="position:absolute;left:-9999px"><div style="background:#fff">${name}</div></label>`;
    const els = await elementsOf(row('Backbone') + row('Angular', 'checked') + row('Ember'));
    expect(lines(els)).toEqual(['radio Backbone off', 'radio Angular on', 'radio Ember off']);
    for (const e of els) {
      expect(e.flags).not.toContain('covered');
      expect(e.tap!.x).toBeGreaterThan(0);
    }
  });

  it('gives a plain element with a click handler of its own a line a tap can use, and leaves a page-wide one out', async () => {
    // A picker's rows (jQuery WeUI's datetime picker): divs, each with its own listener.
    const rows = ['2024', '2025', '2026'].map((y) => `<div class="item" style="padding:8px">${y}</div>`).join('');
    const els = await elementsOf(
      `<div id="root" style="height:100vh"><p>Pick a year</p>${rows}<button><span id="inner">OK</span></button></div>`,
      `document.querySelectorAll('.item').forEach((d) => d.addEventListener('click', () => d.classList.add('on')));
       document.getElementById('root').addEventListener('click', () => {});
       document.getElementById('inner').addEventListener('click', () => {});`,
    );
    // The rows become controls; the page-wide root delegating clicks does not, nor the span inside the button.
    expect(lines(els)).toEqual(['text Pick a year', 'button 2024', 'button 2025', 'button 2026', 'button OK']);
    expect(els.filter((e) => e.interactive).map((e) => e.label)).toEqual(['2024', '2025', '2026', 'OK']);
  });

  it("drops an icon font's glyph from a name, so one row is not read twice", async () => {
    const els = await elementsOf(
      `<label style="display:block;padding:14px"><input type="radio" checked style="position:absolute;left:-9999px">Angular<i>\uf122</i></label><button>\uf0e0</button>`,
    );
    expect(lines(els)).toEqual(['radio Angular on', 'button ']);
    expect(els[1]!.flags).toContain('unnamed');
  });

  it('calls a date input a text field', async () => {
    const els = await elementsOf('<label>Birthday <input type="date"></label>');
    expect(els.map((e) => [e.role, e.label])).toContainEqual(['textfield', 'Birthday']);
  });

  it('puts a transparent checkbox where the box around it draws it, with its state, and leaves one in a hidden box out', async () => {
    // Dojo's dijit CheckBox (TodoMVC's Dojo app): the input at opacity 0 inside a div whose sprite
    // draws the box; the input still takes the taps.
    const box = (checked: string, hide = '') =>
      `<div style="display:inline-block;width:24px;height:24px;background:#4a4;position:relative;${hide}"><input type="checkbox" aria-label="Done" ${checked} style="opacity:0;margin:0;width:24px;height:24px;position:absolute;left:0;top:0"></div>`;
    const els = await elementsOf(`<p>Buy milk</p>${box('checked')}<p>Hidden</p>${box('', 'opacity:0')}`);
    expect(lines(els)).toEqual(['text Buy milk', 'checkbox Done on', 'text Hidden']);
    const done = els.find((e) => e.label === 'Done')!;
    expect(done.tap!.x).toBeGreaterThan(0);
    expect(done.flags).not.toContain('covered');
  });

  it('gives no line to a wrapper named only by the words it holds, and keeps one that answers taps', async () => {
    // WeUI's example pages: the page's wrapper is focusable (tabindex=-1, for focus management), so
    // Chromium names it with all of its text; a line for it repeated the whole page.
    const els = await elementsOf(
      `<div tabindex="-1" style="height:90vh"><h1>Dialog</h1><button>Style one</button><div id="tap" tabindex="0" style="padding:10px">Open sheet</div></div>`,
      "document.getElementById('tap').addEventListener('click', () => {})",
    );
    expect(lines(els)).toEqual(['heading Dialog', 'button Style one', 'button Open sheet']);
  });

  it('gives a header with a listener of its own and two listening buttons in it the buttons, not one merged line', async () => {
    // mobile-select's sheet header: the bar listens (to stop clicks reaching the backdrop), and so
    // do its Cancel and OK spans; one line for the bar merged the two controls.
    const els = await elementsOf(
      `<div id="bar" style="display:flex;justify-content:space-between;padding:12px"><span id="c">Cancel</span><span>Pick one</span><span id="o">OK</span></div>`,
      "for (const id of ['bar', 'c', 'o']) document.getElementById(id).addEventListener('click', () => {});",
    );
    expect(lines(els)).toEqual(['button Cancel', 'text Pick one', 'button OK']);
  });

  it("gives a list's bullets and numbers no line of their own", async () => {
    // TodoMVC's sidebar: a bulleted list of links; each bullet was a "listmarker •" line.
    const all = async (body: string) => {
      await device.currentPageForTests.setContent(`<!doctype html><html><head>${VIEWPORT}</head><body>${body}</body></html>`);
      return readScreen(await device.tree(), 'web').elements;
    };
    const els = await all('<ul><li><a href="#a">Tutorial</a></li><li><a href="#b">Support</a></li></ul><ol><li>First step</li></ol>');
    const lines = els.map((e) => `${e.role} ${e.label}`);
    expect(lines).toEqual(expect.arrayContaining(['link Tutorial', 'link Support', 'cell First step']));
    expect(lines.filter((l) => /listmarker|•|1\./.test(l))).toEqual([]);
  });

  it('leaves out rows a box cuts off (a wheel picker, an inner list scrolled), and keeps what escapes the box', async () => {
    // mobile-select's wheel: rows translated up inside an overflow:hidden window of three rows; an
    // inner list (overflow:auto) scrolled down; a badge positioned against the page, outside a box
    // that clips only what it contains in flow; a fixed bar.
    const wheel = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].map((d) => `<li style="height:40px">${d}</li>`).join('');
    const rows = Array.from({ length: 20 }, (_, i) => `<li style="height:40px"><button>Row ${i + 1}</button></li>`).join('');
    const els = await elementsOf(
      `<div style="height:120px;overflow:hidden;margin-top:60px"><ul style="margin:0;padding:0;list-style:none;transform:translateY(-120px)">${wheel}</ul></div>
       <ul id="inner" style="height:200px;overflow:auto;margin:0;padding:0;list-style:none">${rows}</ul>
       <div style="height:30px;overflow:hidden"><span style="position:absolute;top:500px;left:10px">Badge</span></div>
       <button style="position:fixed;bottom:0;left:0">Fixed</button>`,
      `document.getElementById('inner').scrollTop = 400;`,
    );
    const shown = els.map((e) => e.label);
    expect(shown).toEqual(expect.arrayContaining(['Wed', 'Thu', 'Fri', 'Row 11', 'Row 15', 'Badge', 'Fixed']));
    for (const gone of ['Sun', 'Mon', 'Tue', 'Sat', 'Row 1', 'Row 10', 'Row 16', 'Row 20']) expect(shown).not.toContain(gone);
  });
});
