// Where text recognition cannot run, an outline says so in three words and no more: how to install
// it is said once (the start banner, GET /v1/hosts, the docs), not in every header (issue 40).
// Real eyes on synthetic frames; the recogniser is a stub that says it cannot run, as Tesseract does.
import { afterEach, describe, expect, it } from 'vitest';
import { TESSERACT_INSTALL_HINT } from '../../workers/understanding/ocr/engine.js';
import { Canvas } from '../helpers/synthetic-screen.js';
import { QUIET_MS, understandingRig } from '../helpers/understanding-rig.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('an outline where text recognition is not installed', () => {
  it('carries a short note, without the install instruction', async () => {
    const { device, eyes, u, clock } = await understandingRig(cleanups, {
      recogniserStatus: { available: false, detail: 'tesseract cannot run (spawn tesseract ENOENT)', hint: TESSERACT_INSTALL_HINT },
    });
    device.show(new Canvas(30));
    await clock.advance(QUIET_MS + 10);
    expect(eyes.activity.isSettled()).toBe(true);
    const r = await clock.until(u.current('d1', 1, 'team-a'));
    if ('error' in r) throw r.error;
    const note = u.header('d1', r.value.read).note;
    expect(note).toBe('text recognition unavailable (1 area the tree leaves unexplained not read)');
  });
});
