// Registers a route from its operation in the contract: method, path, the schemas Fastify
// validates with, and the roles the auth hook enforces all come from openapi/simfleet.yaml.
// Handlers receive types generated from the same document; nobody writes a request type.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { operationIndex, parameterSchemas, requestBodySchema, type OperationId } from '../../openapi/contract.js';
import type { operations } from '../../openapi/generated/types.js';
import { ApiError } from '../errors.js';

type Op<O extends OperationId> = operations[O];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : T extends { content: { 'text/plain': infer B } } ? B : never;
type Part<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

/** The JSON body; `| undefined` when the contract makes the body optional. */
export type BodyOf<O extends OperationId> =
  Op<O> extends { requestBody: infer R } ? Json<NonNullable<R>> : Op<O> extends { requestBody?: infer R } ? Json<NonNullable<R>> | undefined : undefined;
export type ParamsOf<O extends OperationId> = Part<Op<O>['parameters']['path']>;
export type QueryOf<O extends OperationId> = Part<Op<O>['parameters']['query']>;
type Responses<O extends OperationId> = Op<O>['responses'];
/** Any of the bodies an operation's 2xx responses may carry (JSON, or text where it offers text). */
type AnyBody<T> = T extends { content: infer C } ? C[keyof C] : never;
export type ReplyOf<O extends OperationId> = {
  [S in keyof Responses<O>]: S extends 200 | 201 | 202 ? AnyBody<Responses<O>[S]> : never;
}[keyof Responses<O>];

export type ContractRequest<O extends OperationId> = FastifyRequest<{ Body: BodyOf<O>; Params: ParamsOf<O>; Querystring: QueryOf<O> }>;
export type ContractHandler<O extends OperationId> = (req: ContractRequest<O>, reply: FastifyReply) => Promise<ReplyOf<O>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: OperationId;
  }
}

function routeParts(operationId: OperationId) {
  const info = operationIndex.get(operationId);
  if (!info) throw new Error(`no operation ${operationId} in the contract`);
  const params = parameterSchemas(operationId);
  const body = requestBodySchema(operationId);
  const bodyOptional = body !== undefined && (info.spec.requestBody as { required?: boolean }).required !== true;
  const schema: Record<string, unknown> = {};
  if (body) schema.body = body;
  if (params.path) schema.params = params.path;
  if (params.header) schema.headers = lowerCaseHeaders(params.header);
  // Unknown query parameters are refused on every non-public route, so a typo is an error.
  if (params.query) schema.querystring = params.query;
  else if (info.roles !== 'public') schema.querystring = { type: 'object', additionalProperties: false };
  return {
    method: info.method,
    url: info.path.replace(/\{(\w+)\}/g, ':$1'),
    schema,
    config: { operationId, bodyRequired: body !== undefined && !bodyOptional },
    // An optional body that was not sent is validated as an empty one.
    ...(bodyOptional ? { preValidation: async (req: FastifyRequest) => void (req.body ??= {}) } : {}),
  };
}

/** Fastify sees header names in lower case. */
function lowerCaseHeaders(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]));
  return { ...schema, properties, required: (schema.required as string[]).map((k) => k.toLowerCase()) };
}

export function contractRoute<O extends OperationId>(
  app: FastifyInstance,
  operationId: O,
  handler: ContractHandler<O>,
  options: { logLevel?: 'warn' | 'info' } = {},
): void {
  app.route({ ...routeParts(operationId), ...options, handler: handler as never });
}

export function contractWebSocket<O extends OperationId>(
  app: FastifyInstance,
  operationId: O,
  wsHandler: (socket: WebSocket, req: ContractRequest<O>) => void,
  /** Runs before the upgrade: a throw here answers a plain HTTP error (404 for another team's session). */
  preHandler?: (req: ContractRequest<O>) => Promise<void>,
): void {
  const parts = routeParts(operationId);
  app.route({
    ...parts,
    ...(preHandler ? { preHandler: preHandler as never } : {}),
    handler: async () => {
      // A plain HTTP GET on a WebSocket route: say what to do instead of hanging.
      throw new ApiError('UPGRADE_REQUIRED');
    },
    wsHandler: wsHandler as never,
  });
}
