// Permissions in one vocabulary, and what each platform calls them. An agent says "location"; iOS's
// `simctl privacy` knows a service of that name, Android knows two runtime permissions behind it and
// Chromium a permission descriptor. A name a platform has no way to set is refused before anything
// is changed, with the names it does have.
import type { components } from '../../openapi/generated/types.js';
import { document } from '../../openapi/contract.js';
import { DeviceError, type DeviceBackend, type PermissionOutcome, type PermissionRequest } from './backend.js';

export type PermissionName = components['schemas']['PermissionName'];
export type PermissionAction = components['schemas']['PermissionRequest']['action'];
export type { PermissionOutcome, PermissionRequest };

/**
 * `simctl privacy` services (its help lists: all, calendar, contacts-limited, contacts, location,
 * location-always, photos-add, photos, media-library, microphone, motion, reminders, siri). It has
 * no camera and no notifications service: asking for those fails with "Operation not permitted".
 */
export const IOS_SERVICES: Partial<Record<PermissionName, string>> = {
  location: 'location',
  'location-always': 'location-always',
  microphone: 'microphone',
  contacts: 'contacts',
  photos: 'photos',
  calendar: 'calendar',
  reminders: 'reminders',
  motion: 'motion',
  all: 'all',
};

const A = (name: string) => `android.permission.${name}`;
const FOREGROUND_LOCATION = [A('ACCESS_FINE_LOCATION'), A('ACCESS_COARSE_LOCATION')];

/**
 * Android runtime permissions behind each name. Several per name because apps request one of a set
 * (fine or coarse location; photos under READ_MEDIA_IMAGES since API 33, READ_EXTERNAL_STORAGE
 * before): those the app does not request are skipped, not failed. Always-on location needs the
 * foreground permissions granted with it, but revoking it takes only the background one away.
 */
export function androidPermissions(name: PermissionName, action: PermissionAction): string[] {
  switch (name) {
    case 'location':
      return FOREGROUND_LOCATION;
    case 'location-always':
      return action === 'grant' ? [...FOREGROUND_LOCATION, A('ACCESS_BACKGROUND_LOCATION')] : [A('ACCESS_BACKGROUND_LOCATION')];
    case 'camera':
      return [A('CAMERA')];
    case 'microphone':
      return [A('RECORD_AUDIO')];
    case 'contacts':
      return [A('READ_CONTACTS'), A('WRITE_CONTACTS')];
    case 'photos':
      return [A('READ_MEDIA_IMAGES'), A('READ_MEDIA_VIDEO'), A('READ_EXTERNAL_STORAGE')];
    case 'calendar':
      return [A('READ_CALENDAR'), A('WRITE_CALENDAR')];
    case 'motion':
      return [A('ACTIVITY_RECOGNITION')];
    case 'notifications':
      return [A('POST_NOTIFICATIONS')];
    case 'reminders':
      return []; // Android has no reminders store of its own
    case 'all': {
      const every: PermissionName[] = ['location-always', 'camera', 'microphone', 'contacts', 'photos', 'calendar', 'motion', 'notifications'];
      return [...new Set(every.flatMap((n) => androidPermissions(n, 'grant')))];
    }
  }
}

/** Chromium's permission descriptors (the Permissions API's names) for a page's origin. */
export const WEB_PERMISSIONS: Partial<Record<PermissionName, string[]>> = {
  location: ['geolocation'],
  camera: ['camera'],
  microphone: ['microphone'],
  notifications: ['notifications'],
  all: ['geolocation', 'camera', 'microphone', 'notifications'],
};

/** The names a platform can set, in the contract's order, for the refusal's hint and details. */
export function supportedOn(platform: 'web' | 'android' | 'ios'): PermissionName[] {
  const all = (document.components as { schemas: Record<string, { enum?: PermissionName[] }> }).schemas.PermissionName!.enum!;
  if (platform === 'ios') return all.filter((n) => IOS_SERVICES[n]);
  if (platform === 'web') return all.filter((n) => WEB_PERMISSIONS[n]);
  return all.filter((n) => androidPermissions(n, 'grant').length > 0);
}

export function unsupported(platform: 'web' | 'android' | 'ios', name: PermissionName, why: string): DeviceError {
  const supported = supportedOn(platform);
  return new DeviceError(
    'PERMISSION_UNSUPPORTED',
    `${name} cannot be set on this ${platform} device: ${why}`,
    `this platform can set: ${supported.join(', ')}`,
    { permission: name, platform, supported },
  );
}

/** A gateway's `device.permission` call on a device: what the backend changed, in the contract's shape. */
export async function applyPermission(backend: DeviceBackend, req: PermissionRequest): Promise<components['schemas']['PermissionResult']> {
  if (!backend.setPermission) throw unsupported(backend.platform, req.permission, `the ${backend.model} backend has no way to set permissions`);
  const out = await backend.setPermission(req);
  return { action: req.action, permission: req.permission, platform: backend.platform, ...out };
}
