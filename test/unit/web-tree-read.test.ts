// The web tree is read in two calls (the accessibility tree and a DOM snapshot). A page that
// replaces a node between them (a header clock rewrites its text every second) must not lose that
// node from the read: the read is taken again. Driven by a scripted DevTools session, because the
// race is a matter of microseconds on real Chromium and cannot be staged there on demand.
import type { CDPSession } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readTree } from '../../workers/devices/web/ax-tree.js';

const SCREEN = { widthPt: 390, heightPt: 844, scale: 3 };

/** A document of a body holding one text node, whose backend id changes with each "tick". */
function snapshotWithText(textId: number) {
  const strings = ['#document', 'BODY', '#text', 'block', 'visible', '1', 'visible', 'rgba(0, 0, 0, 0)'];
  return {
    strings,
    documents: [
      {
        nodes: { parentIndex: [-1, 0, 1], backendNodeId: [1, 2, textId], attributes: [[], [], []], nodeName: [0, 1, 2] },
        layout: {
          nodeIndex: [0, 1, 2],
          bounds: [
            [0, 0, 390, 844],
            [0, 0, 390, 844],
            [8, 8, 60, 14],
          ],
          styles: [
            [3, 4, 5, 6, 7],
            [3, 4, 5, 6, 7],
            [3, 4, 5, 6, 7],
          ],
          paintOrders: [0, 1, 2],
        },
      },
    ],
  };
}

function axWithText(textId: number, label: string) {
  return {
    nodes: [
      { nodeId: 'r', ignored: false, role: { value: 'RootWebArea' }, name: { value: 'page' }, childIds: ['t'], backendDOMNodeId: 1 },
      { nodeId: 't', ignored: false, role: { value: 'StaticText' }, name: { value: label }, parentId: 'r', childIds: [], backendDOMNodeId: textId },
    ],
  };
}

/** A DevTools session whose page ticks (a new text node) once between the snapshot and the tree, `tears` times. */
function tickingPage(tears: number): { cdp: CDPSession; sent: string[] } {
  const sent: string[] = [];
  let textId = 10;
  let torn = 0;
  const send = async (method: string) => {
    sent.push(method);
    switch (method) {
      case 'Page.getLayoutMetrics':
        return { cssVisualViewport: { pageX: 0, pageY: 0, clientWidth: 390, clientHeight: 844, scale: 1 } };
      case 'Page.getFrameTree':
        return { frameTree: { frame: { id: 'main' } } };
      case 'DOMSnapshot.captureSnapshot':
        return snapshotWithText(textId);
      case 'Accessibility.getFullAXTree':
        if (torn < tears) {
          torn++;
          textId++; // the clock ticked after the snapshot was taken
        }
        return axWithText(textId, `12:00:${String(textId).padStart(2, '0')}`);
      default:
        throw new Error(`unexpected ${method}`);
    }
  };
  return { cdp: { send } as unknown as CDPSession, sent };
}

describe('reading the web tree while the page changes', () => {
  it('keeps a node that was replaced between the two halves of a read, by reading again', async () => {
    const page = tickingPage(1);
    const tree = await readTree(page.cdp, SCREEN);
    expect(tree.nodes.map((n) => [n.role, n.label])).toEqual([['text', '12:00:11']]);
    expect(tree.retakes).toBe(1);
    expect(tree.skippedInvisible).toBe(0);
    expect(page.sent.filter((m) => m === 'DOMSnapshot.captureSnapshot')).toHaveLength(2);
  });

  it('reads once when nothing changed in between', async () => {
    const page = tickingPage(0);
    const tree = await readTree(page.cdp, SCREEN);
    expect(tree.nodes).toHaveLength(1);
    expect(tree.retakes).toBeUndefined();
    expect(page.sent.filter((m) => m === 'DOMSnapshot.captureSnapshot')).toHaveLength(1);
  });

  it("does not take a built-in control's inner parts, which no DOM snapshot holds, for a torn read", async () => {
    const sent: string[] = [];
    const snap = snapshotWithText(10);
    snap.strings.push('INPUT');
    snap.documents[0]!.nodes.nodeName[2] = snap.strings.length - 1; // node 10 is an <input> here
    const send = async (method: string) => {
      sent.push(method);
      if (method === 'Page.getLayoutMetrics') return { cssVisualViewport: { pageX: 0, pageY: 0, clientWidth: 390, clientHeight: 844, scale: 1 } };
      if (method === 'Page.getFrameTree') return { frameTree: { frame: { id: 'main' } } };
      if (method === 'DOMSnapshot.captureSnapshot') return snap;
      return {
        nodes: [
          { nodeId: 'r', ignored: false, role: { value: 'RootWebArea' }, childIds: ['i'], backendDOMNodeId: 1 },
          { nodeId: 'i', ignored: false, role: { value: 'textbox' }, name: { value: 'Name' }, parentId: 'r', childIds: ['e'], backendDOMNodeId: 10 },
          // The input's editor in its user-agent shadow tree, and the text in it.
          { nodeId: 'e', ignored: false, role: { value: 'generic' }, parentId: 'i', childIds: ['x'], backendDOMNodeId: 500 },
          { nodeId: 'x', ignored: false, role: { value: 'StaticText' }, name: { value: 'Ada' }, parentId: 'e', childIds: [], backendDOMNodeId: 501 },
        ],
      };
    };
    const tree = await readTree({ send } as unknown as CDPSession, SCREEN);
    expect(tree.retakes).toBeUndefined();
    expect(sent.filter((m) => m === 'DOMSnapshot.captureSnapshot')).toHaveLength(1);
    expect(tree.nodes.map((n) => [n.role, n.label])).toEqual([['textfield', 'Name']]);
  });

  it('gives up after three reads of a page that never holds still, and says how many it retook', async () => {
    const page = tickingPage(Infinity);
    const tree = await readTree(page.cdp, SCREEN);
    expect(tree.retakes).toBe(2);
    expect(page.sent.filter((m) => m === 'DOMSnapshot.captureSnapshot')).toHaveLength(3);
    expect(tree.nodes).toHaveLength(0); // the torn node is still left out, and counted
    expect(tree.skippedInvisible).toBe(1);
  });
});
