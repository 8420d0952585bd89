// Types for screen.mjs, so the TypeScript console double and tests can use the shared helpers.
export interface FakeDevice {
  serial: string;
  state: string;
  product: string;
  model: string;
  device: string;
  transportId: number;
  props: Record<string, string>;
  wmSize: string;
  wmDensity: string;
}
export interface FakeState {
  devices: FakeDevice[];
  /** Raw `adb devices -l` text to print instead of the list built from `devices`. */
  devicesOutput?: string;
  foreground: string;
  screen: string;
  data: Record<string, 'clean' | 'dirty'>;
  snapshots: string[];
  /** Apps installed by `adb install` (those the device does not ship). */
  installed?: string[];
  /** Runtime permissions set by `pm grant|revoke`, per package; userSet until `pm clear-permission-flags`. */
  permissions?: Record<string, Record<string, { granted: boolean; userSet: boolean }>>;
}
export interface Touch {
  via: 'adb' | 'console';
  action: string;
  x: number;
  y: number;
  at: number;
  slot?: number;
}
export const LAUNCHER: string;
export const FIXTURES: URL;
export const SCREENS: Record<string, { file: string }>;
export const APPS: Record<string, { versionName: string; activity: string | null; screens: string[] }>;
export function defaultState(opts?: { serial?: string }): FakeState;
export function readState(dir: string): FakeState;
export function writeState(dir: string, state: FakeState): void;
export function initState(dir: string, state?: FakeState): FakeState;
export function updateState(dir: string, change: (state: FakeState) => void): FakeState;
export function log(dir: string, line: string): void;
export function recordTouch(dir: string, entry: Omit<Touch, 'at'>): void;
export function readTouches(dir: string): Touch[];
export function inputDetached(dir: string): boolean;
export function pixelSize(device: FakeDevice): { width: number; height: number };
export function dumpOf(screen: string): string;
export function showApp(state: FakeState, pkg: string): void;
export function goHome(state: FakeState): void;
export function nextScreen(state: FakeState): void;
export function screenPng(dir: string, screen: string, size: { width: number; height: number }): Buffer;
export function decodeInputText(arg: string): string;
export function linkAt(screen: string, x: number, y: number): string | null;
