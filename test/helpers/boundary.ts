// The platform boundary's conformance suite: what every backend must do, checked the same way for
// each (web on real Chromium; Android and iOS against their doubles, since neither can run here).
// A backend's test file supplies a harness: how to build it over its double, and how the double
// shows what reached it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppTarget, BackendProvider, DeviceBackend, Frame, Point } from '../../workers/devices/backend.js';
import { tap } from '../../workers/devices/gestures.js';
import type { PermissionName } from '../../workers/devices/permissions.js';
import { sleep, waitFor } from './wait.js';

export interface BoundaryDouble {
  /** The double's app changes what it shows by itself (a new screen; new tree and new pixels). */
  changeScreen(): Promise<void>;
  /** Where the double saw the last touch-down land, converted to points, or null if none arrived. */
  lastTouchPt(): Promise<Point | null>;
  /** From now on inputs are accepted without error but reach nothing (a detached input service). */
  disconnectInput(): void;
  /** Leaves app state behind (what a session would leave); isClean() tells whether any remains. */
  dirty(): Promise<void>;
  isClean(): Promise<boolean>;
  /** Called after every prepare (a double that watches from inside the app installs itself). */
  prepared?(): Promise<void>;
  /** A permission of the session's app as the platform holds it: granted, denied, or not decided (prompt). */
  permissionState(name: PermissionName): Promise<'granted' | 'denied' | 'prompt'>;
}

export interface BoundaryHarness {
  name: string;
  platform: 'web' | 'android' | 'ios';
  /** The TreeNode.source its tree nodes carry ('web', 'uiautomator', 'axe', …). */
  source: string;
  /** What a session opens on it (null: the backend's default). */
  app?: AppTarget | null;
  /** A permission the platform can set for that app, and one it has no way to set. */
  permissions: { settable: PermissionName; unsettable: PermissionName };
  setup(): Promise<{ provider: BackendProvider; localId: string; double: BoundaryDouble; close(): Promise<void> }>;
}

const ROLES = new Set(
  'button link text heading textfield securefield switch checkbox radio slider select option menuitem tab tabbar navbar toolbar list cell image dialog alert keyboard key progress status header footer navigation canvas webview scroll group window application other'.split(
    ' ',
  ),
);

/** Only the backend's own default pages (web); other platforms ignore it. */
const NO_ORIGINS = { allowedOrigins: [], allowPrivate: false };

/** Frames the device sends over a window, counted. */
async function framesOver(device: DeviceBackend, ms: number): Promise<Frame[]> {
  const seen: Frame[] = [];
  const off = device.onFrame((f) => seen.push(f));
  await sleep(ms);
  off();
  return seen;
}

export function describeBoundary(h: BoundaryHarness): void {
  describe(`the platform boundary: ${h.name}`, () => {
    let provider: BackendProvider;
    let device: DeviceBackend;
    let double: BoundaryDouble;
    let close: () => Promise<void>;
    const signal = () => AbortSignal.timeout(30_000);

    beforeAll(async () => {
      const built = await h.setup();
      ({ provider, double, close } = built);
      await provider.start();
      device = await waitFor(
        `device ${built.localId} ready`,
        async () => (await provider.discover()).some((d) => d.localId === built.localId && d.health === 'ready') && provider.device(built.localId),
        20_000,
      );
      await device.prepare(h.app ?? null, { signal: signal(), origins: NO_ORIGINS });
      await double.prepared?.();
    }, 60_000);
    afterAll(async () => {
      await close?.();
    });

    it('says it is available and reports a ready device of its platform', async () => {
      const status = await provider.status();
      expect(status).toMatchObject({ platform: h.platform, available: true });
      expect(status.detail, 'the status names what it found').toBeTruthy();
      const found = (await provider.discover()).find((d) => d.localId === device.localId)!;
      expect(found).toMatchObject({ platform: h.platform, health: 'ready' });
      expect(found.model.length).toBeGreaterThan(0);
      expect(found.os.length).toBeGreaterThan(0);
      expect(device.platform).toBe(h.platform);
    });

    it('streams a frame for a changed screen and none while it stays still', async () => {
      const first = await new Promise<Frame>((resolve) => {
        const off = device.onFrame((f) => {
          off();
          resolve(f);
        });
        // A backend that sends frames only on change may owe us none: ask for the screen as it is.
        void device.probe().catch(() => undefined);
      });
      expect(first.width).toBeGreaterThan(0);
      expect(first.pixelsPerPoint).toBeGreaterThan(0);
      const screen = device.screen();
      expect(Math.abs(first.width / first.pixelsPerPoint - screen.widthPt)).toBeLessThan(2);
      // Settle whatever the prepare set moving, then watch a still screen.
      // Whatever the prepare set moving (a loading list, a transition) must end first.
      await waitFor('the screen to come to rest', async () => (await framesOver(device, 1000)).length === 0, 15_000, 0);
      const still = await framesOver(device, 1200);
      expect(still.length, 'frames from a screen nobody touched').toBe(0);
      let seen = 0;
      const off = device.onFrame(() => seen++);
      try {
        await double.changeScreen();
        await waitFor('a frame after the screen changed', () => seen > 0, 5000, 20);
      } finally {
        off();
      }
    });

    it('returns the tree in points, in the one element model', async () => {
      const tree = await device.tree();
      const screen = device.screen();
      expect(tree.screen.widthPt).toBeCloseTo(screen.widthPt, 0);
      expect(tree.nodes.length).toBeGreaterThan(3);
      for (const n of tree.nodes) {
        expect(n.source).toBe(h.source);
        expect(ROLES.has(n.role), `role ${n.role}`).toBe(true);
        expect(Number.isFinite(n.frame.x + n.frame.y + n.frame.width + n.frame.height)).toBe(true);
      }
      const onScreen = tree.nodes.filter((n) => !n.offscreen);
      const inside = onScreen.filter(
        (n) => n.frame.x >= -1 && n.frame.y >= -1 && n.frame.x + n.frame.width <= screen.widthPt + 1 && n.frame.y + n.frame.height <= screen.heightPt + 1,
      );
      // Points, not pixels: a tree read in device pixels would spill far past the screen.
      expect(inside.length / onScreen.length).toBeGreaterThan(0.9);
      expect(
        tree.nodes.some((n) => n.label.length > 0),
        'labels were read',
      ).toBe(true);
    });

    it('lands a tap on the point it was given, in points', async () => {
      const screen = device.screen();
      const at = { x: Math.round(screen.widthPt * 0.3), y: Math.round(screen.heightPt * 0.6) };
      await device.touch(tap(at));
      const landed = await waitFor('the double saw the touch', () => double.lastTouchPt().then((p) => p ?? undefined), 5000);
      expect(Math.abs(landed.x - at.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(landed.y - at.y)).toBeLessThanOrEqual(1);
    });

    it('leaves nothing of a session behind after a reset', async () => {
      await double.dirty();
      expect(await double.isClean()).toBe(false);
      await device.reset(signal());
      expect(await double.isClean()).toBe(true);
      await device.prepare(h.app ?? null, { signal: signal(), origins: NO_ORIGINS });
      await double.prepared?.();
    });

    it('grants, revokes and resets a permission of the app, refuses one it cannot set, and forgets it at reset', async () => {
      const { settable, unsettable } = h.permissions;
      expect(await double.permissionState(settable)).toBe('prompt');
      const granted = await device.setPermission!({ action: 'grant', permission: settable });
      expect(granted.applied.length).toBeGreaterThan(0);
      expect(await double.permissionState(settable)).toBe('granted');
      await device.setPermission!({ action: 'revoke', permission: settable });
      expect(await double.permissionState(settable)).toBe('denied');
      await device.setPermission!({ action: 'reset', permission: settable });
      expect(await double.permissionState(settable)).toBe('prompt');
      const refused = await device.setPermission!({ action: 'grant', permission: unsettable }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'PERMISSION_UNSUPPORTED', details: { permission: unsettable, supported: expect.arrayContaining([settable]) } });
      // A permission granted in one session is not there in the next.
      await device.setPermission!({ action: 'grant', permission: settable });
      await device.reset(signal());
      await device.prepare(h.app ?? null, { signal: signal(), origins: NO_ORIGINS });
      await double.prepared?.();
      expect(await double.permissionState(settable)).toBe('prompt');
    });

    it('takes input without error when the input channel has detached, and nothing arrives', async () => {
      const before = await double.lastTouchPt();
      double.disconnectInput();
      const screen = device.screen();
      const at = { x: Math.round(screen.widthPt * 0.7), y: Math.round(screen.heightPt * 0.4) };
      await device.touch(tap(at));
      await sleep(300);
      expect(await double.lastTouchPt()).toEqual(before);
      if (device.inputsReceived) {
        // Where the platform counts inputs, the count is what tells the acting layer.
        const n = await device.inputsReceived();
        await device.touch(tap(at));
        expect(await device.inputsReceived()).toBe(n);
      }
    });
  });
}
