// One reading of a screen: a normalised tree turned into elements, regions, lists, a title, an
// order and refs, and a fingerprint. Pure and synchronous: the same tree gives the same reading.
import type { ScreenSize, TreeSnapshot } from '../devices/backend.js';
import { elementsOf, type Element } from './elements.js';
import { fingerprintOf, type Fingerprint } from './fingerprint.js';
import { findLists, type DetectedList } from './lists.js';
import { isName, normaliseLabel } from './names.js';
import { findRegions, median, regionOf, rowsOf, type RegionName, type Regions } from './regions.js';
import { clipToRegions, clipToScreen } from './visibility.js';

export type Platform = 'web' | 'android' | 'ios';

export interface ScreenReading {
  platform: Platform;
  screen: ScreenSize;
  /** Every element in outline order: by region, then top to bottom, left to right. */
  elements: Element[];
  /** Parallel to elements: the ref (@N) of each element a user can see, else null. */
  refs: (number | null)[];
  /** Parallel to elements: its region. */
  regionOf: RegionName[];
  regions: Regions;
  lists: DetectedList[];
  title: string | null;
  fingerprint: Fingerprint;
  nodeCount: number;
}

const REGION_ORDER: RegionName[] = ['top', 'content', 'modal', 'bottom', 'keyboard'];

export function readScreen(tree: TreeSnapshot, platform: Platform): ScreenReading {
  const screen = tree.screen;
  const found = elementsOf(tree);
  clipToScreen(found, screen);
  const regions = findRegions(tree.nodes, found, screen);
  clipToRegions(found, regions, screen);
  const order = ordered(found, regions, platform);
  const elements = order.map((i) => found[i]!);
  const lists = findLists(elements, tree.nodes, screen.widthPt);
  const regionNames = elements.map((e) => regionOf(e, regions));
  let next = 1;
  const refs = elements.map((e) => (e.tap ? next++ : null));
  // Only a title the chrome shows may veto a match; a large title read from the content is the
  // screen's name in the outline, but a scrolled page shows another one there.
  const chromeTitle = titleOf(elements, regionNames, regions, tree);
  const title = chromeTitle ?? largeTitleOf(elements, regionNames);
  const fingerprint = fingerprintOf(tree.nodes, elements, regions, lists, chromeTitle, screen);
  return { platform, screen, elements, refs, regionOf: regionNames, regions, lists, title, fingerprint, nodeCount: tree.nodes.length };
}

/**
 * Region first, then reading order. iOS and web sort by centre line (controls in a row are centred
 * even when their heights differ); Android bounds include a container's padding, so a parent's
 * centre can fall among its children's: there the top edge sorts.
 */
function ordered(elements: Element[], regions: Regions, platform: Platform): number[] {
  const key = (e: Element) => {
    const f = e.visible ?? e.frame;
    return platform === 'android' ? f.y : f.y + f.height / 2;
  };
  const rank = elements.map((e) => REGION_ORDER.indexOf(regionOf(e, regions)));
  return elements
    .map((_, i) => i)
    .sort(
      (a, b) =>
        rank[a]! - rank[b]! ||
        Math.round(key(elements[a]!)) - Math.round(key(elements[b]!)) ||
        Math.round((elements[a]!.visible ?? elements[a]!.frame).x) - Math.round((elements[b]!.visible ?? elements[b]!.frame).x) ||
        a - b,
    );
}

/** Two texts whose centres differ by less than this are centred alike (layout rounds to whole pixels). */
const CENTRED_PT = 2;

/**
 * The title the chrome shows: a modal's own name when one covers the screen; else what the top bar
 * declares or holds (a heading, or the text nearest the middle).
 */
function titleOf(elements: Element[], region: RegionName[], regions: Regions, tree: TreeSnapshot): string | null {
  const named = (s: string | null | undefined) => (s && normaliseLabel(s) ? normaliseLabel(s) : null);
  if (regions.modal) {
    const inModal = elements.filter((_, i) => region[i] === 'modal');
    return named(regions.modal.label) ?? named(inModal.find((e) => e.role === 'heading')?.label) ?? null;
  }
  // The first bar in the top region that names itself (an app bar holds a collapsing toolbar that does).
  const bar = tree.nodes.find((n) => (n.role === 'navbar' || n.role === 'toolbar') && regions.top && n.frame.y < regions.top.y1 && isName(n.label));
  if (bar) return normaliseLabel(bar.label);
  const top = elements.filter((e, i) => region[i] === 'top' && e.visible);
  // A bar that names itself without a role (Android's collapsing toolbar): a named group holding
  // the top bar's controls.
  for (const e of top) {
    for (let p = tree.nodes[e.node]!.parent; p !== null; p = tree.nodes[p]!.parent) {
      const a = tree.nodes[p]!;
      if (a.role === 'application' || a.role === 'window' || a.frame.height > tree.screen.heightPt / 2) break;
      if (a.frame.y > regions.top!.y0 + 1) continue; // a group inside the bar's content, not the bar
      if ((a.role === 'group' || a.role === 'other') && isName(a.label)) return normaliseLabel(a.label);
    }
  }
  const heading = top.find((e) => e.role === 'heading');
  if (heading) return named(heading.label);
  const W = tree.screen.widthPt;
  // Of the texts centred under the bar, the nearest the middle; two as near as a pixel's rounding
  // (a bar's title and a section heading under it, both centred) go by height, the upper first:
  // which of them sits a point nearer the middle turns with the screen's width.
  const off = (e: Element) => Math.abs(e.tap!.x - W / 2);
  const texts = top.filter((e) => e.role === 'text' && isName(e.label) && !tree.nodes[e.node]!.system).sort((a, b) => off(a) - off(b));
  const centred = texts.filter((e) => off(e) < W / 6 && off(e) - off(texts[0]!) <= CENTRED_PT).sort((a, b) => a.frame.y - b.frame.y);
  if (centred[0]) return centred[0].label;
  // Android's toolbar draws its title leading, just after the navigation button: no text near the
  // middle, so the one that starts furthest left (in the left third, not reaching the actions).
  const leading = [...texts].sort((a, b) => a.frame.x - b.frame.x)[0];
  if (leading && leading.frame.x < W / 3 && leading.frame.x + leading.frame.width <= W * 0.75) return leading.label;
  return null;
}

/** A large title: the first content row, one heading or text clearly bigger than the screen's text, whether it shows or has scrolled away under the bar (the page still holds it). */
function largeTitleOf(elements: Element[], region: RegionName[]): string | null {
  const content = elements.filter((e, i) => (region[i] === 'content' && !e.flags.includes('offscreen')) || (region[i] === 'content' && e.frame.y < 0));
  const rows = rowsOf(content.map((e) => ({ ...e, visible: e.frame })));
  const first = rows[0];
  if (first && first.members.length === 1) {
    const e = first.members[0]!;
    const textHeight = median(elements.filter((x) => x.role === 'text').map((x) => x.frame.height));
    const label = normaliseLabel(e.label);
    if (label && (e.role === 'heading' || (e.role === 'text' && textHeight > 0 && e.frame.height >= 1.3 * textHeight))) return label;
  }
  return null;
}
