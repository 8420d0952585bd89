// Which screencast frames are a capture's own paint rather than the screen.
//
// A capture at a pixel density of its own (an OCR read at 2 px/pt, a look at 3) has Chromium
// repaint the page at that density while the capture lasts, and the screencast sends those paints
// too: a magnified corner of the screen. The eyes took each for motion over the whole screen, and
// with a read after every settle a screen under load stayed "moving" for 26 s (CI, the long form's
// submit). Most such paints carry the capture's size in their metadata (786 or 1179 px wide, not
// 393); some carry the screen's own size and are told apart only by when they were painted: inside
// the capture's window (measured over 20 captures: every frame unlike the screen was painted inside
// one, none outside; one more came 50 ms after the capture answered). So a frame painted while a
// capture ran, or just after, is left out, whatever it shows, and once that is over the device
// sends one fresh frame of the screen in their place, so a change that happened meanwhile is seen.
import { type Clock, systemClock } from '../../clock.js';

/** Slack before a window, for the two clocks' resolutions (Chromium's and Node's). */
const SLACK_MS = 5;
/**
 * How long after a capture has answered its paints may still come: Chromium puts the page's own
 * density back after it answers, and a paint 50 ms after the answer was still magnified (seen 1 in
 * about 10 runs of 10 captures).
 */
export const TAIL_MS = 150;
/** Windows kept: a paint arrives at most a few frames after its capture. */
const KEPT = 8;

export interface PaintMetadata {
  deviceWidth: number;
  deviceHeight: number;
  /** When the frame was painted, in seconds since the epoch (Chromium's clock). */
  timestamp?: number;
}

export class CapturePaints {
  private readonly windows: { from: number; to: number }[] = [];
  private open = 0;
  private openedAt = 0;
  /** Frames left out since the device last sent a fresh frame in their place. */
  private pending = 0;
  /** Frames left out over the device's life. */
  dropped = 0;

  constructor(
    private readonly screen: { width: number; height: number },
    private readonly clock: Pick<Clock, 'wall'> = systemClock,
  ) {}

  /** Around a capture at another density: frames painted while it runs are not the screen. */
  async during<T>(capture: () => Promise<T>): Promise<T> {
    if (this.open++ === 0) this.openedAt = this.clock.wall();
    try {
      return await capture();
    } finally {
      if (--this.open === 0) {
        this.windows.push({ from: this.openedAt, to: this.clock.wall() });
        if (this.windows.length > KEPT) this.windows.shift();
      }
    }
  }

  /** Whether a screencast frame is a capture's paint (counted, and owed a fresh frame) or the screen. */
  isCapturePaint(m: PaintMetadata, receivedAt = this.clock.wall()): boolean {
    const painted = m.timestamp !== undefined ? m.timestamp * 1000 : receivedAt;
    const sized = Math.abs(m.deviceWidth - this.screen.width) > 1 || Math.abs(m.deviceHeight - this.screen.height) > 1;
    const inside =
      (this.open > 0 && painted >= this.openedAt - SLACK_MS) || this.windows.some((w) => painted >= w.from - SLACK_MS && painted <= w.to + TAIL_MS);
    if (!sized && !inside) return false;
    this.dropped++;
    this.pending++;
    return true;
  }

  /** Frames left out that no fresh frame has replaced yet; taking them clears the count. */
  takeOwed(): number {
    const n = this.pending;
    this.pending = 0;
    return n;
  }

  get capturing(): boolean {
    return this.open > 0;
  }
}
