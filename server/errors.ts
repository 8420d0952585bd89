// One table of coded errors. Every failure a client can see has a code from the contract's
// ErrorCode enum; the code alone decides the HTTP status, so clients can branch on it.
import type { ErrorCode } from '../openapi/contract.js';

interface ErrorSpec {
  status: number;
  message: string;
  hint: string;
}

export const ERRORS: Readonly<Record<ErrorCode, ErrorSpec>> = {
  MALFORMED_JSON: { status: 400, message: 'the body is not valid JSON', hint: 'send a JSON document with Content-Type: application/json' },
  VALIDATION_FAILED: { status: 400, message: 'the request does not match the API contract', hint: 'see details.field and GET /openapi.json for the schema' },
  UNAUTHORIZED: {
    status: 401,
    message: 'no bearer token',
    hint: 'send Authorization: Bearer <token>; an admin mints tokens with POST /v1/tokens or `simfleet token create`',
  },
  INVALID_TOKEN: { status: 401, message: 'the token is unknown or revoked', hint: 'ask an admin for a new token (`simfleet token create`)' },
  INVALID_TICKET: {
    status: 401,
    message: 'the ticket is unknown, used, expired, or its token was revoked',
    hint: 'ask for a new one (POST /v1/tickets) right before the upgrade; each is good once, for 30 s',
  },
  FORBIDDEN: {
    status: 403,
    message: "the token's role may not do this",
    hint: 'use a token with one of the roles this operation lists in /openapi.json (x-simfleet-roles)',
  },
  NOT_FOUND: { status: 404, message: 'no such resource', hint: 'list the collection to see the ids that exist' },
  ROUTE_NOT_FOUND: { status: 404, message: 'no such route', hint: 'GET /openapi.json lists every route' },
  BODY_TOO_LARGE: {
    status: 413,
    message: 'the body is larger than the gateway accepts',
    hint: "send a smaller body; the gateway's SIMFLEET_BODY_LIMIT_BYTES sets the limit",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'the body has a content type the gateway does not read', hint: 'send Content-Type: application/json' },
  UPGRADE_REQUIRED: { status: 426, message: 'this route speaks WebSocket only', hint: 'connect with a WebSocket client (Upgrade: websocket)' },
  NO_MATCHING_DEVICE: {
    status: 422,
    message: 'no device in the farm could ever satisfy this request',
    hint: 'GET /v1/devices lists what the farm has; relax device.model, device.os or device.labels',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: 'this Idempotency-Key was used with a different request body',
    hint: 'use a new key for a new request, or resend the original body',
  },
  SESSION_ENDED: { status: 410, message: 'the session has ended', hint: 'details.endReason says why; create a new session' },
  HOST_UNREACHABLE: {
    status: 503,
    message: "the device's host is not connected to any gateway",
    hint: 'GET /v1/hosts/{id} shows when it was last seen; retry once it is back',
  },
  STALE_LEASE: {
    status: 409,
    message: 'the command carries a lease epoch older than the device has',
    hint: 'the session lost its device; create a new session',
  },
  COMMAND_TIMEOUT: { status: 504, message: 'the host did not answer in time', hint: 'retry; if it persists the host may be overloaded or hung' },
  HOST_OVERLOADED: {
    status: 503,
    message: "the device's host could not answer in time: it is short of CPU for its devices, or the app is too busy to answer",
    hint: 'ask again (Retry-After): the work goes on, and the next request joins it or is answered from it; simfleet_worker_strain_total shows how strained the host is',
  },
  DEVICE_FAILED: {
    status: 502,
    message: 'the device could not do what was asked',
    hint: 'the message says what failed; the device may be quarantined (GET /v1/devices/{id})',
  },
  DEVICE_BUSY: { status: 409, message: 'the device is in use or unreachable', hint: 'release its session first, or wait for its host to come back' },
  SESSION_NOT_READY: { status: 409, message: 'the session has no device yet', hint: 'wait until it is ready: GET /v1/sessions/{id}?wait=60&ifState=queued' },
  UNKNOWN_MARK: {
    status: 404,
    message: 'no such mark in this session',
    hint: 'POST /v1/sessions/{id}/marks to take one; marks last as long as the session holds its device',
  },
  DESTRUCTIVE_REFUSED: {
    status: 409,
    message: 'the step would tap a control that looks destructive',
    hint: 'say allowDestructive: true on that step if it is meant',
  },
  STALE_REF: {
    status: 409,
    message: 'the ref was numbered on a screen that is no longer shown',
    hint: 'read the screen again (GET /v1/sessions/{id}/screen) and use a ref from that outline; details.current names the screen shown now',
  },
  NO_MATCH: {
    status: 422,
    message: 'nothing on the screen matches the target',
    hint: 'read the screen (GET /v1/sessions/{id}/screen) for the elements it has; details.near lists labels that come close',
  },
  NOT_A_FIELD: {
    status: 422,
    message: 'the target takes no text',
    hint: 'type into a text field (a textfield line of the outline); details.target is the element the target named',
  },
  AMBIGUOUS: { status: 409, message: 'the target matches more than one element', hint: 'name one of details.candidates by its ref (@N), or add a role' },
  PLAN_CHANGED: {
    status: 409,
    message: "the resume names a plan digest that is not this plan's",
    hint: 'resume with the same steps and the planDigest the divergence report gave, or run the new plan from its start (no from)',
  },
  RECORDING_ACTIVE: {
    status: 409,
    message: 'the session is already recording a flow',
    hint: 'save it (POST /v1/sessions/{id}/recording/save) or discard it (DELETE /v1/sessions/{id}/recording) first',
  },
  EMPTY_RECORDING: {
    status: 422,
    message: 'no step ran while the session was recording',
    hint: 'run the steps (POST /v1/sessions/{id}/actions or /do) before saving, or discard the recording',
  },
  MAESTRO_UNSUPPORTED: {
    status: 422,
    message: 'the Maestro flow has commands or options simfleet cannot run; nothing was run',
    hint: 'details.problems names each with its file and line; simfleet maestro check FILE lists them without a device',
  },
  LOOK_UNAVAILABLE: {
    status: 422,
    message: 'that image cannot be served as asked',
    hint: 'the message says the largest scale and the screen size; ask within them',
  },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: 'a web device may not open that page',
    hint: 'the farm admin lists allowed origins in SIMFLEET_WEB_ALLOWED_ORIGINS; private and metadata addresses also need SIMFLEET_WEB_ALLOW_PRIVATE or an explicit entry',
  },
  PERMISSION_UNSUPPORTED: {
    status: 422,
    message: 'that permission cannot be set on this device',
    hint: 'details.supported lists the permissions this platform can set; on Android the app must request it in its manifest',
  },
  APP_UNREACHABLE: { status: 502, message: "the app's URL could not be loaded", hint: 'check that the URL is reachable from the device hosts' },
  NOT_READY: { status: 503, message: 'the gateway is not ready', hint: 'GET /readyz says which check is failing; retry shortly' },
  SHUTTING_DOWN: { status: 503, message: 'the gateway is shutting down', hint: 'retry against another gateway or in a few seconds' },
  INTERNAL: { status: 500, message: 'internal error', hint: 'retry; if it persists, give the operator the requestId from this response' },
  PROTOCOL_ERROR: {
    status: 400,
    message: 'the message does not match the worker protocol',
    hint: 'the worker and gateway must run compatible simfleet versions',
  },
  PROTOCOL_VERSION_MISMATCH: {
    status: 400,
    message: 'the worker speaks a different protocol version',
    hint: 'run the same simfleet version on the worker and the gateway',
  },
  HELLO_TIMEOUT: {
    status: 408,
    message: 'the worker did not say hello in time',
    hint: 'check the worker log; it must send WorkerHello right after connecting',
  },
  HEARTBEAT_TIMEOUT: {
    status: 408,
    message: 'no heartbeat within the host timeout',
    hint: 'the worker will redial; check the network between worker and gateway',
  },
  HOST_ID_IN_USE: {
    status: 409,
    message: 'another live worker already holds this host id',
    hint: 'give each worker its own data dir (SIMFLEET_DATA_DIR) or --host-id',
  },
  HOST_REPLACED: {
    status: 409,
    message: 'a newer connection for this host took over',
    hint: 'nothing to do if the worker redialled; otherwise two workers share a host id',
  },
  MESSAGE_TOO_LARGE: { status: 413, message: 'the message is larger than the gateway accepts', hint: 'the limit is SIMFLEET_WS_MAX_PAYLOAD on the gateway' },
};

/** The one error class for anything a client should see. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly hint: string;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, opts: { message?: string; hint?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    const spec = ERRORS[code];
    super(opts.message ?? spec.message, { cause: opts.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = spec.status;
    this.hint = opts.hint ?? spec.hint;
    this.details = opts.details;
  }

  toBody(requestId?: string): { error: { code: ErrorCode; message: string; hint: string; details?: Record<string, unknown>; requestId?: string } } {
    return {
      error: {
        code: this.code,
        message: this.message,
        hint: this.hint,
        ...(this.details ? { details: this.details } : {}),
        ...(requestId ? { requestId } : {}),
      },
    };
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
