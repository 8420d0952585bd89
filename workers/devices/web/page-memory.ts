// What each web device's page holds in Chromium's renderer: its JS heap, DOM nodes and event
// listeners. A soak found Chromium's renderers growing while the worker held flat; these figures,
// sampled every half minute, tell the page's own state (an app keeping what it loaded) from memory
// the renderer keeps beside it. Sampling costs two DevTools calls per page.
import type { CDPSession } from 'playwright-core';
import type { PageMemory } from '../backend.js';

/** How often the pages are read: memory moves over minutes, and a read wakes each renderer. */
export const PAGE_MEMORY_INTERVAL_MS = 30_000;

export async function readPageMemory(cdp: CDPSession): Promise<PageMemory> {
  const [heap, dom] = await Promise.all([cdp.send('Runtime.getHeapUsage'), cdp.send('Memory.getDOMCounters')]);
  return { jsHeapBytes: Math.round(heap.usedSize), domNodes: dom.nodes, eventListeners: dom.jsEventListeners };
}
