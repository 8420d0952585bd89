// The doubles' screens drawn from the recorded dump they replay: no recorded screenshots of these
// screens exist (the corpus holds accessibility dumps only), so each labelled element of the dump
// is drawn as a dark bar where its text would be, inside the box the dump gives it, on a light grey
// background. The pixels then have the recorded screen's layout: perception sees changes where the
// elements are, and the pixel tier finds something drawn where the tree puts its labels (it does not
// read the bars as words: they are blocks, not glyphs). The same dump always draws the same bytes.
import { encodePng } from './png.mjs';

/**
 * Labelled boxes of a uiautomator or Appium XML dump, in the dump's pixels, with the size of the
 * screen it was taken on (its root's bounds).
 */
export function xmlBoxes(xml) {
  const boxes = [];
  let screen = null;
  for (const m of xml.matchAll(/<[^>]*\sbounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"[^>]*>/g)) {
    const [x1, y1, x2, y2] = m.slice(1, 5).map(Number);
    screen ??= { width: x2, height: y2 };
    const label = /\stext="([^"]*)"/.exec(m[0])?.[1] || /\scontent-desc="([^"]*)"/.exec(m[0])?.[1] || '';
    if (label.trim() && x2 > x1 && y2 > y1) boxes.push({ x: x1, y: y1, width: x2 - x1, height: y2 - y1, label });
  }
  return { boxes, screen };
}

/** Labelled boxes of an AXe or idb JSON dump, in points. */
export function jsonBoxes(json) {
  const boxes = [];
  const walk = (node) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const f = node.frame;
    const label = node.AXLabel ?? node.AXValue ?? '';
    if (f && typeof label === 'string' && label.trim() && f.width > 0 && f.height > 0) boxes.push({ x: f.x, y: f.y, width: f.width, height: f.height, label });
    walk(node.children);
  };
  walk(JSON.parse(json));
  return boxes;
}

/**
 * A width × height grey PNG with a bar for each box (boxes in this image's pixels). Boxes covering
 * most of the screen (a window, the app's root) carry a name, not text drawn on screen: skipped.
 * Rows are filled by copying whole runs: the fake adb draws a screen on its first screenshot, inside
 * a test's time budget, on a machine busy with the rest of the suite.
 */
export function layoutPng(width, height, boxes, { background = 246, ink = 40 } = {}) {
  const canvas = Buffer.alloc(width * height, background);
  for (const b of boxes) {
    if (b.width * b.height > 0.25 * width * height) continue;
    const barH = Math.max(2, Math.round(Math.min(b.height * 0.5, height * 0.025)));
    const barW = Math.max(2, Math.round(Math.min(b.width * 0.9, barH * 0.6 * Math.max(1, [...b.label].length))));
    const x0 = Math.min(width - 1, Math.max(0, Math.round(b.x + Math.min(b.width * 0.05, barH))));
    const y0 = Math.max(0, Math.round(b.y + (b.height - barH) / 2));
    const x1 = Math.min(width, x0 + barW);
    for (let y = y0; y < Math.min(height, y0 + barH); y++) canvas.fill(ink, y * width + x0, y * width + x1);
  }
  return encodePng(width, height, 1, (y) => canvas.subarray(y * width, (y + 1) * width));
}
