// The contract at run time: the one piece of code the gateway and the workers share.
// It turns the generated document into JSON Schema validators (Ajv, draft 2020-12, which is
// what OpenAPI 3.1 schemas are) and indexes the operations by operationId.
import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import document from './generated/document.js';
import type { components, operations } from './generated/types.js';

export { document };
export type Schemas = components['schemas'];
export type OperationId = keyof operations;
export type ErrorCode = Schemas['ErrorCode'];
export type WorkerMessage = Schemas['WorkerMessage'];
export type GatewayMessage = Schemas['GatewayMessage'];
export type Role = Schemas['Role'];

export const PROTOCOL_VERSION: Schemas['ProtocolVersion'] = 11;

/** Component schemas live under this id so that any schema can `$ref` them. */
export const CONTRACT_ID = 'https://simfleet.dev/contract';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const doc = document as JsonObject;
const componentSchemas = ((doc.components as JsonObject).schemas ?? {}) as JsonObject;
const componentParameters = ((doc.components as JsonObject).parameters ?? {}) as JsonObject;

/** Rewrites document-local refs so a schema can be compiled outside the document. */
export function portable(node: Json): Json {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out[key] = `${CONTRACT_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`;
    } else if (key.startsWith('x-') || key === 'example') {
    } else if (key === 'discriminator' && value && typeof value === 'object' && !Array.isArray(value)) {
      // Ajv derives the mapping from each branch's `const` and refuses an explicit one.
      out[key] = { propertyName: (value as JsonObject).propertyName ?? 'type' };
    } else {
      out[key] = portable(value);
    }
  }
  return out;
}

/** An Ajv instance that knows every component schema. */
export function createAjv(options: Options = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: false,
    discriminator: true,
    allowUnionTypes: true,
    ...options,
  });
  addFormats(ajv);
  ajv.addSchema({ $id: CONTRACT_ID, $defs: portable(componentSchemas) as JsonObject });
  return ajv;
}

const sharedAjv = createAjv();

/** A validator for one named component schema. */
export function schemaValidator<T>(name: keyof Schemas & string): ValidateFunction<T> {
  const validate = sharedAjv.getSchema(`${CONTRACT_ID}#/$defs/${name}`);
  if (!validate) throw new Error(`no schema named ${name} in the contract`);
  return validate as ValidateFunction<T>;
}

/** Where a validation failed, in words a client can act on. */
export function describeValidationError(errors: ErrorObject[] | null | undefined): { field: string; reason: string } {
  const first = errors?.[0];
  if (!first) return { field: '', reason: 'did not match the contract' };
  const base = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (first.keyword === 'required') {
    const missing = (first.params as { missingProperty: string }).missingProperty;
    return { field: base ? `${base}.${missing}` : missing, reason: 'is required' };
  }
  // Schemas composed with allOf (an action, a step) close themselves with unevaluatedProperties.
  if (first.keyword === 'additionalProperties' || first.keyword === 'unevaluatedProperties') {
    const { additionalProperty, unevaluatedProperty } = first.params as { additionalProperty?: string; unevaluatedProperty?: string };
    const extra = additionalProperty ?? unevaluatedProperty ?? '';
    return { field: base ? `${base}.${extra}` : extra, reason: 'is not a known field' };
  }
  if (first.keyword === 'discriminator') {
    const { tag, tagValue } = first.params as { tag: string; tagValue: unknown };
    return { field: base ? `${base}.${tag}` : tag, reason: `${JSON.stringify(tagValue)} is not a known type` };
  }
  if (first.keyword === 'enum' || first.keyword === 'const') {
    const allowed = first.params as { allowedValues?: unknown[]; allowedValue?: unknown };
    const values = allowed.allowedValues ?? [allowed.allowedValue];
    return { field: base, reason: `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return { field: base, reason: first.message ?? 'is invalid' };
}

export interface OperationInfo {
  operationId: OperationId;
  method: string;
  path: string;
  roles: Role[] | 'public';
  websocket: boolean;
  spec: JsonObject;
}

/** Every operation in the document, by operationId. */
export const operationIndex: ReadonlyMap<OperationId, OperationInfo> = (() => {
  const index = new Map<OperationId, OperationInfo>();
  for (const [path, item] of Object.entries(doc.paths as JsonObject)) {
    for (const [method, op] of Object.entries(item as JsonObject)) {
      const spec = op as JsonObject;
      const id = spec.operationId as OperationId;
      const isPublic = Array.isArray(spec.security) && spec.security.length === 0;
      const roles = isPublic ? 'public' : ((spec['x-simfleet-roles'] ?? []) as Role[]);
      if (!isPublic && roles.length === 0) throw new Error(`${id} names no roles and is not public`);
      index.set(id, { operationId: id, method: method.toUpperCase(), path, roles, websocket: 'x-websocket' in spec, spec });
    }
  }
  return index;
})();

/** The parameters of an operation, grouped by where they arrive, as JSON Schema objects. */
export function parameterSchemas(operationId: OperationId): { path?: JsonObject; query?: JsonObject; header?: JsonObject } {
  const info = operationIndex.get(operationId);
  if (!info) throw new Error(`unknown operation ${operationId}`);
  const groups: Record<string, { properties: JsonObject; required: string[] }> = {};
  for (const raw of (info.spec.parameters ?? []) as JsonObject[]) {
    const param = resolveParameter(raw);
    const where = param.in as string;
    const group = (groups[where] ??= { properties: {}, required: [] });
    group.properties[param.name as string] = portable(param.schema ?? {});
    if (param.required === true) group.required.push(param.name as string);
  }
  const out: { path?: JsonObject; query?: JsonObject; header?: JsonObject } = {};
  for (const [where, group] of Object.entries(groups)) {
    const schema: JsonObject = { type: 'object', properties: group.properties, required: group.required };
    // Unknown query parameters are refused so that a typo is an error, not a silently ignored filter.
    if (where !== 'header') schema.additionalProperties = false;
    out[where as 'path' | 'query' | 'header'] = schema;
  }
  return out;
}

/** The JSON request body schema of an operation, if it takes one. */
export function requestBodySchema(operationId: OperationId): JsonObject | undefined {
  const info = operationIndex.get(operationId);
  const body = info?.spec.requestBody as JsonObject | undefined;
  const schema = ((body?.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
  return schema === undefined ? undefined : (portable(schema) as JsonObject);
}

/** The JSON schema of one response of an operation (used by contract tests). */
export function responseSchema(operationId: OperationId, status: number): JsonObject | undefined {
  const info = operationIndex.get(operationId);
  let response = (info?.spec.responses as JsonObject | undefined)?.[String(status)] as JsonObject | undefined;
  if (response && typeof response.$ref === 'string') {
    const name = response.$ref.slice('#/components/responses/'.length);
    response = ((doc.components as JsonObject).responses as JsonObject)[name] as JsonObject;
  }
  const schema = ((response?.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
  return schema === undefined ? undefined : (portable(schema) as JsonObject);
}

function resolveParameter(raw: JsonObject): JsonObject {
  if (typeof raw.$ref !== 'string') return raw;
  const name = raw.$ref.slice('#/components/parameters/'.length);
  const resolved = componentParameters[name];
  if (!resolved) throw new Error(`unresolved parameter ${raw.$ref}`);
  return resolved as JsonObject;
}
