// Mobile emulation profiles: the viewport in points, the device scale factor, touch, and the
// mobile user agent, as a real phone or tablet of that size would present them.
export interface WebProfile {
  name: string;
  model: string;
  os: string;
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  userAgent: string;
  labels: string[];
}

const SAFARI_IOS = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const SAFARI_IPAD = 'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

export const PROFILES: Record<string, WebProfile> = {
  'iphone-15': {
    name: 'iphone-15',
    model: 'iPhone 15 (web)',
    os: 'Chromium mobile emulation',
    viewport: { width: 393, height: 852 },
    deviceScaleFactor: 3,
    userAgent: SAFARI_IOS,
    labels: ['phone', 'ios-like'],
  },
  'pixel-8': {
    name: 'pixel-8',
    model: 'Pixel 8 (web)',
    os: 'Chromium mobile emulation',
    viewport: { width: 412, height: 915 },
    deviceScaleFactor: 2.625,
    userAgent: CHROME_ANDROID,
    labels: ['phone', 'android-like'],
  },
  'ipad-air': {
    name: 'ipad-air',
    model: 'iPad Air (web)',
    os: 'Chromium mobile emulation',
    viewport: { width: 820, height: 1180 },
    deviceScaleFactor: 2,
    userAgent: SAFARI_IPAD,
    labels: ['tablet', 'ios-like'],
  },
};

/** "iphone-15:2,pixel-8" → [iphone-15, iphone-15, pixel-8]; "" or "none" → no web devices. */
export function parseWebDevices(spec: string): WebProfile[] {
  if (spec.trim() === '' || spec.trim() === 'none') return [];
  return spec.split(',').flatMap((part) => {
    const [name, count] = part.trim().split(':');
    const profile = PROFILES[name ?? ''];
    if (!profile) throw new Error(`unknown web device profile "${name}"; known: ${Object.keys(PROFILES).join(', ')}`);
    const n = count === undefined ? 1 : Number(count);
    if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`bad count in "${part}": use name:N with N from 1 to 64`);
    return Array.from({ length: n }, () => profile);
  });
}
