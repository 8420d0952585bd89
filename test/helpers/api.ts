// A REST client for tests that calls operations by their contract id and checks every response
// body against the schema the contract gives for that status.
import type { ValidateFunction } from 'ajv';
import { createAjv, operationIndex, responseSchema, type OperationId } from '../../openapi/contract.js';

const ajv = createAjv({ strict: false });
const validators = new Map<string, ValidateFunction>();

function validatorFor(operationId: OperationId, status: number): ValidateFunction | undefined {
  const key = `${operationId} ${status}`;
  if (!validators.has(key)) {
    const schema = responseSchema(operationId, status) ?? (status >= 400 ? { $ref: 'https://simfleet.dev/contract#/$defs/Error' } : undefined);
    if (schema) validators.set(key, ajv.compile(schema));
  }
  return validators.get(key);
}

export interface CallOptions {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  token?: string | null;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export function api(baseUrl: string, defaultToken?: string) {
  return {
    token: defaultToken,
    async call<T = any>(operationId: OperationId, opts: CallOptions = {}): Promise<ApiResponse<T>> {
      const info = operationIndex.get(operationId)!;
      const path = info.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(opts.params?.[name] ?? `missing-${name}`));
      const url = new URL(path, baseUrl);
      for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
      const token = opts.token === undefined ? defaultToken : opts.token;
      const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...opts.headers };
      let body: string | undefined = opts.rawBody;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url, { method: info.method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.text();
      const isJson = res.headers.get('content-type')?.includes('application/json');
      const parsed = isJson && text ? JSON.parse(text) : text;
      const validate = isJson ? validatorFor(operationId, res.status) : undefined;
      if (validate) {
        if (!validate(parsed)) {
          throw new Error(`${operationId} answered ${res.status} with a body outside the contract: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
        }
      }
      return { status: res.status, body: parsed as T, text, headers: res.headers };
    },
  };
}
