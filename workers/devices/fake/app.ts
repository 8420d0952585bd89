// The fake backend's deterministic "app": two screens, a tree for each, and a frame for each whose
// pixels depend only on the screen, so layers above can be tested without a platform.
import type { Rect, TreeNode } from '../backend.js';

export const FAKE_SCREEN = { widthPt: 393, heightPt: 852, scale: 3 };

export interface FakeScreen {
  name: string;
  /** Gray level 0–255 the frame is filled with, and a block that differs per screen. */
  shade: number;
  elements: { role: string; label: string; frame: Rect; id?: string; goesTo?: string }[];
}

export const FAKE_SCREENS: Record<string, FakeScreen> = {
  home: {
    name: 'home',
    shade: 240,
    elements: [
      { role: 'heading', label: 'Home', frame: { x: 16, y: 60, width: 200, height: 40 } },
      { role: 'button', label: 'Settings', frame: { x: 16, y: 120, width: 361, height: 44 }, id: 'open-settings', goesTo: 'settings' },
      { role: 'button', label: '', frame: { x: 337, y: 60, width: 40, height: 40 } },
    ],
  },
  settings: {
    name: 'settings',
    shade: 200,
    elements: [
      { role: 'button', label: 'Back', frame: { x: 8, y: 60, width: 60, height: 40 }, goesTo: 'home' },
      { role: 'heading', label: 'Settings', frame: { x: 100, y: 60, width: 193, height: 40 } },
      { role: 'switch', label: 'Wi-Fi', frame: { x: 16, y: 120, width: 361, height: 44 }, id: 'wifi' },
    ],
  },
};

export function fakeTree(screen: FakeScreen): TreeNode[] {
  return screen.elements.map((e, index) => ({
    index,
    parent: null,
    role: e.role,
    label: e.label,
    value: null,
    states: {},
    frame: e.frame,
    id: e.id ?? null,
    source: 'web',
    interactive: e.role === 'button' || e.role === 'switch',
    unnamed: (e.role === 'button' || e.role === 'switch') && e.label === '',
    offscreen: false,
  }));
}

/** A raw RGBA frame at one pixel per point: the screen's shade, with its elements drawn darker. */
export function fakeFrame(screen: FakeScreen): Buffer {
  const { widthPt: w, heightPt: h } = FAKE_SCREEN;
  const px = Buffer.alloc(w * h * 4, screen.shade);
  for (const e of screen.elements) {
    for (let y = e.frame.y; y < e.frame.y + e.frame.height; y++) {
      for (let x = e.frame.x; x < e.frame.x + e.frame.width; x++) {
        const i = (y * w + x) * 4;
        px[i] = px[i + 1] = px[i + 2] = screen.shade - 120;
      }
    }
  }
  for (let i = 3; i < px.length; i += 4) px[i] = 255;
  return px;
}
