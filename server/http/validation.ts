// Fastify's validator compiler, fed from the contract. Bodies are JSON and validated as sent;
// path and query values arrive as strings, so those are coerced to the schema's types.
import type { FastifySchemaCompiler } from 'fastify';
import { createAjv } from '../../openapi/contract.js';

const bodyAjv = createAjv({ coerceTypes: false, useDefaults: true });
const stringAjv = createAjv({ coerceTypes: 'array', useDefaults: true });

export const validatorCompiler: FastifySchemaCompiler<Record<string, unknown>> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : stringAjv).compile(schema);
