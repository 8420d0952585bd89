// The platform boundary. A BackendProvider tells the worker which devices a backend (web, android,
// ios, fake) offers on this host; a DeviceBackend drives one of them. Everything above this file is
// platform-blind: it sees frames, a normalised tree, a touch primitive, text and keys.
import type { components } from '../../openapi/generated/types.js';

export type BackendStatus = components['schemas']['BackendStatus'];
export type DeviceReport = Omit<components['schemas']['WorkerDevice'], 'lease'>;
export type AppTarget = components['schemas']['AppTarget'];
export type ErrorCode = components['schemas']['ErrorCode'];
export type OriginRules = components['schemas']['OriginRules'];
export type PermissionRequest = components['schemas']['PermissionRequest'];

/** What a backend did to a permission: its own names for what it changed, and those it left alone. */
export interface PermissionOutcome {
  app: string | null;
  applied: string[];
  skipped?: string[];
  note?: string;
}

export interface PrepareOptions {
  signal: AbortSignal;
  /** Which pages a browser on the device may open during the session. */
  origins: OriginRules;
}

export interface Point {
  x: number;
  y: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The screen in points (what taps and frames are measured in) and pixels per point. */
export interface ScreenSize {
  widthPt: number;
  heightPt: number;
  scale: number;
}

/** One rendered frame. Frames arrive only when the screen changes: a still screen yields none. */
export interface Frame {
  /** Encoded (jpeg, png) or raw 8-bit RGBA pixels (raw: width × height × 4 bytes). */
  data: Buffer;
  format: 'jpeg' | 'png' | 'raw';
  width: number;
  height: number;
  /** Pixels of this frame per point of the screen (a frame may be smaller than the screen). */
  pixelsPerPoint: number;
  /** performance.now() on this worker when it arrived. */
  receivedAt: number;
}

/** The screen as an image (look, text recognition, a run's screenshot step). */
export interface Screenshot {
  png: Buffer;
  width: number;
  height: number;
  /** Pixels of this image per point. */
  scale: number;
}

export interface NodeStates {
  checked?: boolean | 'mixed';
  selected?: boolean;
  disabled?: boolean;
  focused?: boolean;
  expanded?: boolean;
  /** A field that shows a value and takes no input (a review step's copy of what was typed). */
  readonly?: boolean;
}

/**
 * Where a node's description came from: Chromium's AX tree (web), an Android uiautomator dump or
 * Appium page source (uiautomator), XCUITest page source XML (xcuitest), idb `ui describe-all`
 * (idb), AXe `describe-ui` (axe), or text recognised in pixels (ocr).
 */
export type NodeSource = 'web' | 'uiautomator' | 'xcuitest' | 'idb' | 'axe' | 'ocr';

/**
 * One element of the screen, the same shape from every platform. Frames are in points. Roles come
 * from one vocabulary: button, link, text, heading, textfield, securefield, switch, checkbox, radio,
 * slider, select, option, menuitem, tab, tabbar, navbar, toolbar, list, cell, image, dialog, alert,
 * keyboard, key, progress, status, header, footer, navigation, canvas, webview, scroll, group,
 * window, application, other.
 */
export interface TreeNode {
  index: number;
  parent: number | null;
  role: string;
  label: string;
  value: string | null;
  states: NodeStates;
  frame: Rect;
  /** A stable id where the platform has one (web: id or data-testid; Android: resource-id; iOS: accessibility identifier). */
  id: string | null;
  source: NodeSource;
  interactive: boolean;
  /** Interactive but with no accessible name (an icon button nobody labelled). */
  unnamed: boolean;
  /** Entirely outside the viewport, or cut off entirely by a container (still rendered: a list row below the fold, or scrolled out of an inner list). */
  offscreen: boolean;
  /**
   * The part of the frame its containers let show, where one cuts it (web: an ancestor's overflow
   * hidden, auto or scroll); null when they let none of it show. Absent when nothing cuts it.
   */
  clip?: Rect | null;
  /** Its content scrolls (web: overflow auto/scroll; Android: scrollable; iOS: tables, scroll views). */
  scrollable?: boolean;
  /** A field whose only name is its placeholder, or none: no label is tied to it (a label beside it may be meant). */
  nameFrom?: 'placeholder';
  /**
   * Drawn by the system's own UI over the app (Android's status bar, in a dump of every window):
   * shown, but no part of which screen of the app this is.
   */
  system?: boolean;
  /**
   * Something drawn over the middle of its visible part hides it (web: a later-painted opaque box,
   * such as the page pushed over this one). Platforms that cannot tell leave it out.
   */
  covered?: boolean;
  /** How sure the sensor was (0–1): text recognised in pixels (source "ocr") says; a tree does not. */
  confidence?: number;
  /** Found by the platform's hit test inside a container the tree reported empty (understanding/probe.ts). */
  probed?: boolean;
  /** Where the label came from when not from the node's own source: a control the tree left unnamed, named by the text drawn in it. */
  labelFrom?: 'ocr';
  /** Words read from the pixels inside this node that contradict what the tree says of it (a stale text, a field whose value the tree lost). */
  pixelText?: string;
}

export interface TreeSnapshot {
  nodes: TreeNode[];
  /** Rendered nothing a user could see (hidden, zero-sized, transparent): left out, and counted. */
  skippedInvisible: number;
  screen: ScreenSize;
  durationMs: number;
  /** Reads taken again because the screen changed while it was being read (a source read in parts). */
  retakes?: number;
}

/** Fingers down at one moment of a gesture; a finger missing from the next frame has lifted. */
export interface TouchFrame {
  atMs: number;
  touches: (Point & { id: number })[];
}

export interface DeviceBackend {
  readonly localId: string;
  readonly platform: 'web' | 'android' | 'ios';
  /** What a person would call the device: "iPhone 15 (web)", "Pixel 8 emulator". */
  readonly model: string;
  /**
   * How far a finger moves before the platform starts scrolling (points). A drag meant to scroll
   * an exact distance adds it (gestures.drag's slopPt); one meant to move an object does not.
   */
  readonly touchSlopPt: number;
  screen(): ScreenSize;
  /** A clean state with the session's app opened (or the backend's default when app is null). */
  prepare(app: AppTarget | null, opts: PrepareOptions): Promise<void>;
  /** Back to a clean state between sessions: nothing of the previous session may remain. */
  reset(signal: AbortSignal): Promise<void>;
  /** Subscribes to frames; returns the unsubscribe function. */
  onFrame(listener: (frame: Frame) => void): () => void;
  /**
   * The screen as it is now, drawn on request (about 1 px/pt), not taken from the frame stream.
   * A stream that stalls (a renderer starved of CPU, a slow link) looks exactly like a still
   * screen; perception asks for a probe before it calls a screen that moved settled. A probe whose
   * signal is aborted before it begins (it may wait its turn behind other captures) is not taken.
   */
  probe(signal?: AbortSignal): Promise<Frame>;
  tree(): Promise<TreeSnapshot>;
  /**
   * The app in the foreground, as the platform names it (web: origin and path of the page; Android:
   * package; iOS: bundle id), or null when none is known. Screens are remembered per app.
   */
  foreground(): string | null;
  /**
   * The foreground app's version where the platform says (Android versionName, iOS short version);
   * web pages have none. Memory is kept per version band (the major version).
   */
  appVersion?(): string | null;
  /** Plays a touch sequence with its real timing (one finger or several). */
  touch(frames: TouchFrame[]): Promise<void>;
  /** Types into the focused field. */
  type(text: string): Promise<void>;
  /** A key by its name: Enter, Backspace, Tab, Escape, ArrowDown, … */
  key(name: string): Promise<void>;
  open(url: string): Promise<void>;
  /** The session's app opened afresh, as prepare() opened it (web: a new page load of its URL). */
  launch(): Promise<void>;
  back(): Promise<void>;
  reload(): Promise<void>;
  /**
   * The screen as an image. `scale` is the most pixels per point the caller will use: a backend that
   * can render the screen at fewer (web) does, which costs the browser a smaller buffer per capture;
   * one that cannot (a simulator's or emulator's framebuffer) gives its own. A capture whose
   * `signal` is aborted before it begins (its caller stopped waiting) is not taken.
   */
  screenshot(opts?: { scale?: number; signal?: AbortSignal }): Promise<Screenshot>;
  /**
   * How many inputs (touches, keys) the app has received so far, where the platform can tell (web:
   * counted in the page). The delivery probe compares it across an action: an input that changed
   * nothing on screen either reached the app (no visible change) or did not (not delivered).
   * Platforms that cannot tell leave it out, and an action that changes nothing there "may not
   * have been delivered".
   */
  inputsReceived?(): Promise<number>;
  /**
   * What the platform's own hit test finds at each point (web: the element at a point, climbed to
   * the control it belongs to): for containers whose children the tree does not report. Null where
   * only the container itself (or nothing) is there.
   */
  hitTest?(points: Point[]): Promise<(HitElement | null)[]>;
  /**
   * Where the keyboard's focus is after a tap meant for the field at `p`, made right where it is not:
   * a page can cancel the tap (a touchend listener that prevents every default, a fast-click library
   * that "focuses" in a way only iOS honours, inputs made untouchable while a touch lasts), and the
   * keys would then go to the page's body. Finds the field at the point (under a label or an overlay
   * too), and focuses it directly when the tap left the focus elsewhere. Platforms whose taps always
   * focus (or that cannot tell) leave it out.
   */
  focusField?(p: Point): Promise<FieldFocus>;
  /**
   * The options of a native select at `p` (found under a styled overlay or through its label too),
   * or null when there is none there. Platforms without one leave it out.
   */
  selectOptions?(p: Point): Promise<SelectChoices | null>;
  /** Chooses the option at `index` of the native select at `p`, as a user's pick does: the page hears input and change. */
  chooseOption?(p: Point, index: number): Promise<void>;
  /**
   * Grants, revokes or resets one permission of the session's app, in the shared vocabulary
   * (permissions.ts), so no system prompt has to be tapped through. Refuses a name the platform has
   * no way to set with PERMISSION_UNSUPPORTED before changing anything. Platforms without any way
   * to set permissions leave it out.
   */
  setPermission?(req: PermissionRequest): Promise<PermissionOutcome>;
}

/**
 * The keyboard's focus after a tap into a field: `tap` the tap put it there (or in a field the app
 * moved it to); `direct` the tap left it on `was`, and the field was focused directly; `none` it
 * is on `was` and no field at the point could take it (nothing must be typed).
 */
export interface FieldFocus {
  how: 'tap' | 'direct' | 'none';
  /** What held the focus after the tap, as the platform names it (web: `body`, `input#name[type=tel]`). */
  was: string;
  /** The field found at the point, as the platform names it; absent when none was. */
  field?: string;
}

/** A native select's options in order, and which one is selected (null: none). */
export interface SelectChoices {
  options: { label: string; disabled: boolean }[];
  selected: number | null;
}

/** A control found by the platform's hit test rather than by enumerating the tree. */
export interface HitElement {
  role: string;
  label: string;
  frame: Rect;
  id: string | null;
  interactive: boolean;
}

export interface BackendProvider {
  readonly backend: BackendStatus['backend'];
  /** Gets the backend running (a browser launched, a bridge connected); failures show in status(). */
  start(): Promise<void>;
  /** Whether this host can run the backend at all; when not, `hint` says how to fix it. */
  status(): Promise<BackendStatus>;
  /** The devices this backend offers on this host right now. */
  discover(): Promise<DeviceReport[]>;
  device(localId: string): DeviceBackend | undefined;
  /** Called whenever discover() would answer differently; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
  /**
   * What the devices' own pages hold, summed, as last sampled; undefined where the backend cannot
   * read it (a simulator's app is not ours to inspect). For telling a growing host's parts apart.
   */
  pageMemory?(): PageMemory | undefined;
  /**
   * Captures not taken because their caller stopped waiting before the device's capture queue
   * reached them, since the backend started: a sign the host cannot keep up with its devices.
   */
  capturesGivenUp?(): number;
}

export interface PageMemory {
  jsHeapBytes: number;
  domNodes: number;
  eventListeners: number;
}

export function sumPageMemory(pages: readonly PageMemory[]): PageMemory {
  return pages.reduce(
    (a, p) => ({ jsHeapBytes: a.jsHeapBytes + p.jsHeapBytes, domNodes: a.domNodes + p.domNodes, eventListeners: a.eventListeners + p.eventListeners }),
    { jsHeapBytes: 0, domNodes: 0, eventListeners: 0 },
  );
}

/** A failure with a contract error code, answered to the gateway as such. */
export class DeviceError extends Error {
  override readonly name = 'DeviceError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
    /** Code-specific facts for the client (the current screen for STALE_REF, candidates for AMBIGUOUS). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
