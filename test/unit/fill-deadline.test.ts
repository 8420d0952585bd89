// A long form filled for a caller who stops waiting halfway: the fields after the deadline are not
// entered (the caller may already be driving the device with its next call).
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../workers/acting/deadline.js';
import { delay } from '../../workers/clock.js';
import { fill } from '../../workers/acting/fill.js';
import type { DeviceBackend } from '../../workers/devices/backend.js';
import type { Eyes } from '../../workers/perception/eyes.js';
import type { Read } from '../../workers/understanding/service.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

function form(touchMs: number) {
  const clock = new VirtualClock();
  const typed: string[] = [];
  const values = new Map<string, string>();
  let focused = '';
  const fields = ['Email', 'Password', 'Name'];
  const read = (): Read => {
    const elements = fields.map((label, i) => ({
      role: 'textfield',
      label,
      value: values.get(label) ?? '',
      states: {},
      detail: null,
      frame: { x: 20, y: 100 + i * 60, width: 350, height: 44 },
      tap: { x: 195, y: 122 + i * 60 },
    }));
    return {
      reading: {
        screen: { widthPt: 390, heightPt: 844 },
        elements,
        refs: elements.map((_, i) => `@${i + 1}`),
        regionOf: elements.map(() => 'content'),
        regions: {},
      },
    } as unknown as Read;
  };
  const device = {
    async touch(frames: { touches: { y: number }[] }[]) {
      await delay(clock, touchMs);
      focused = fields[Math.round((frames[0]!.touches[0]!.y - 122) / 60)]!;
    },
    async type(text: string) {
      typed.push(text);
      values.set(focused, text);
    },
    async key() {},
  } as unknown as DeviceBackend;
  const eyes = { confirmStill: async () => undefined, clock } as unknown as Eyes;
  return { ctx: { device, eyes, settledRead: async () => read() }, typed, clock };
}

describe('filling a form for a caller with a deadline', () => {
  it('fills every field when there is time', async () => {
    const { ctx, typed, clock } = form(10);
    const run = withDeadline(
      10_000,
      () =>
        fill(ctx, [
          { target: 'Email', value: 'a@b.c' },
          { target: 'Password', value: 'pw' },
          { target: 'Name', value: 'Ann' },
        ]),
      clock,
    );
    const answer = await clock.until(run);
    if ('error' in answer) throw answer.error;
    expect(answer.tookMs).toBe(3 * (10 + 80)); // a tap and the focus pause a field
    const out = answer.value;
    expect(out.filled).toEqual(['Email', 'Password', 'Name']);
    expect(typed).toEqual(['a@b.c', 'pw', 'Ann']);
  });

  it('enters no field once the caller has stopped waiting, and says which one it did not begin', async () => {
    const { ctx, typed, clock } = form(60); // a tap and the focus pause take 140 ms a field
    const run = withDeadline(
      100,
      () =>
        fill(ctx, [
          { target: 'Email', value: 'a@b.c' },
          { target: 'Password', value: 'pw' },
          { target: 'Name', value: 'Ann' },
        ]),
      clock,
    );
    const answer = await clock.until(run);
    expect(answer).toMatchObject({ tookMs: 140, error: { code: 'COMMAND_TIMEOUT', message: expect.stringContaining('entering "Password" was not begun') } });
    await clock.advance(300);
    expect(typed).toEqual(['a@b.c']);
  });
});
