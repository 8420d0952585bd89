// The parameters of a gateway's call, checked against the contract before anything acts on them.
// The gateway validates what clients send, but a worker must not trust the gateway to have done so:
// a confused or hostile gateway's `perception.wait {for: null}` otherwise waited out a default, and
// junk reached the acting layer as if it were a request.
import type { ValidateFunction } from 'ajv';
import { describeValidationError, schemaValidator, type Schemas } from '../openapi/contract.js';
import { DeviceError } from './devices/backend.js';

type Method = Schemas['GatewayCall']['method'];

/** Methods whose parameters are a contract request body; the others coerce what they read themselves. */
const SCHEMA: Partial<Record<Method, keyof Schemas & string>> = {
  'perception.wait': 'WaitRequest',
  'screen.locate': 'LocateRequest',
  'screen.look': 'LookRequest',
  'action.run': 'ActionRequest',
  'steps.run': 'DoRequest',
  'device.permission': 'PermissionRequest',
};

const validators = new Map<string, ValidateFunction>();

export function checkCallParams(method: Method, params: Record<string, unknown>): void {
  const name = SCHEMA[method];
  if (!name) return;
  let validate = validators.get(name);
  if (!validate) validators.set(name, (validate = schemaValidator(name)));
  if (validate(params)) return;
  const { field, reason } = describeValidationError(validate.errors);
  throw new DeviceError(
    'VALIDATION_FAILED',
    `${method} parameters${field ? `.${field}` : ''} ${reason}`,
    'the gateway sends what its contract route validated; a gateway of another version, or not a gateway, sent this',
    { field, reason },
  );
}
