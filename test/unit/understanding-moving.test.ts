// A read on a screen that is still moving. The pixel tiers hold the tree against the newest frame,
// so they run on settled screens only. CI once caught a canvas screen read a moment before its
// settle was confirmed: the words it draws were left out, that read was then served again as the
// screen's answer, and "START", on screen all along, was refused as matching nothing. Real eyes
// (frame store, settle, confirmation) on synthetic frames; the device's tree and the recogniser
// are stubs, since what is tested is what the read does with them.
import { afterEach, describe, expect, it } from 'vitest';
import type { TreeSnapshot } from '../../workers/devices/backend.js';
import { DeviceError } from '../../workers/devices/backend.js';
import type { Eyes } from '../../workers/perception/eyes.js';
import { Canvas, SCREEN, type SyntheticDevice, W } from '../helpers/synthetic-screen.js';
import type { Cancel } from '../../workers/clock.js';
import { canvasTree, QUIET_MS, understandingRig } from '../helpers/understanding-rig.js';
import type { VirtualClock } from '../helpers/virtual-clock.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const rig = () => understandingRig(cleanups);

/** Frames that keep the screen moving (a large box sliding) every 40 ms of the clock's time until stopped. */
function keepMoving(device: SyntheticDevice, clock: VirtualClock): () => void {
  let x = 0;
  let cancel: Cancel = () => undefined;
  const next = () => {
    device.show(new Canvas(30).rect((x += 5) % (W - 20), 20, 20, 20, 220));
    cancel = clock.timeout(next, 40);
  };
  cancel = clock.timeout(next, 40);
  cleanups.push(() => cancel());
  return () => cancel();
}

/** The quiet window and the device's confirmation pass: the screen has settled. */
async function settled(eyes: Eyes, clock: VirtualClock): Promise<void> {
  await clock.advance(QUIET_MS + 10);
  expect(eyes.activity.isSettled()).toBe(true);
}

describe('a read that needs the pixel tiers, on a moving screen', () => {
  it('says it was moving, is not served again, and the next read once it settles has the words', async () => {
    const { device, eyes, u, counts, clock } = await rig();
    device.show(new Canvas(30));
    await settled(eyes, clock);
    device.show(new Canvas(30).rect(10, 10, 20, 20, 200)); // a repaint: settled again only once confirmed
    await eyes.idle();
    expect(eyes.activity.isSettled()).toBe(false);
    const { read } = await u.current('d1', 1, 'team-a'); // no timer in its way: the read is at once
    expect(read.ocr).toMatchObject({ lines: 0, moving: true, unread: 1 });
    expect(counts.recognised).toBe(0);
    expect(u.header('d1', read).note).toContain('the screen was still moving: 1 area the tree leaves unexplained not read from pixels');
    let refusal: unknown;
    try {
      u.locate('d1', 1, read, 'START');
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(DeviceError);
    expect(refusal).toMatchObject({ code: 'NO_MATCH', hint: 'wait for the screen to settle, then ask again', details: { moving: true } });
    expect((refusal as Error).message).toContain('the screen was still moving when it was read');
    expect(read.memory.recall(read.identified.node.id)).toBeFalsy();
    // No frame comes after the repaint: the old code served the read without the words again here.
    await settled(eyes, clock);
    const trees = counts.trees;
    const again = await u.current('d1', 1, 'team-a');
    expect(again.cached).toBe(false);
    expect(counts.trees).toBe(trees + 1);
    expect(again.read.ocr).toMatchObject({ lines: 1 });
    expect(again.read.ocr?.moving).toBeUndefined();
    expect(u.locate('d1', 1, again.read, 'START').how).toBe('ocr');
    expect(again.read.memory.recall(again.read.identified.node.id)).toBeTruthy();
    // and that one is the answer from now on
    expect((await u.current('d1', 1, 'team-a')).cached).toBe(true);
  });

  it('does not wait for a settle: a screen that keeps moving is read at once', async () => {
    const { device, u, clock } = await rig();
    keepMoving(device, clock);
    await clock.advance(200);
    const answer = await clock.until(u.current('d1', 1, 'team-a'));
    expect(answer.tookMs).toBe(0);
    expect('value' in answer && answer.value.read.ocr).toMatchObject({ moving: true });
  });

  it('marks nothing on a moving screen with nothing to look for in pixels', async () => {
    const rigged = await rig();
    const { device, u, clock } = rigged;
    const backend = rigged.backend as unknown as { tree: () => Promise<TreeSnapshot> };
    // A tree that accounts for what moves (an animation it names): no area is left unexplained.
    backend.tree = async () => ({
      ...canvasTree(),
      nodes: [{ ...canvasTree().nodes[0]!, role: 'image', label: 'Loading animation', frame: { x: 0, y: 150, width: SCREEN.widthPt, height: 200 } }],
    });
    keepMoving(device, clock);
    await clock.advance(200);
    const { read } = await u.current('d1', 1, 'team-a');
    expect(read.ocr ?? null).toBeNull();
  });
});
