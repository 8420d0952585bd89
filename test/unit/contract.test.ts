import { describe, expect, it } from 'vitest';
import { describeValidationError, document, operationIndex, schemaValidator, type Schemas } from '../../openapi/contract.js';
import { ApiError, ERRORS } from '../../server/errors.js';

describe('the contract', () => {
  it('gives every operation a unique id and either roles or an explicit public marker', () => {
    const ops = [...operationIndex.values()];
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    for (const op of ops) expect(op.roles === 'public' || op.roles.length > 0).toBe(true);
  });

  it('has a status, a message and a hint for every error code it declares', () => {
    const codes = ((document.components as any).schemas.ErrorCode.enum as string[]).sort();
    expect(Object.keys(ERRORS).sort()).toEqual(codes);
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(spec.status, code).toBeGreaterThanOrEqual(400);
      expect(spec.status, code).toBeLessThan(600);
      expect(spec.hint.length, code).toBeGreaterThan(10);
    }
  });

  it('keeps internals out of a 5xx body', () => {
    const err = new ApiError('INTERNAL', { cause: new Error('password authentication failed for user "simfleet"') });
    expect(JSON.stringify(err.toBody('r1'))).not.toContain('password');
  });

  it('explains validation failures by field', () => {
    const isHello = schemaValidator<Schemas['WorkerHello']>('WorkerHello');
    isHello({
      type: 'hello',
      protocolVersion: 2,
      host: { id: 'ok-host', name: 'n', os: 'o', arch: 'a', version: 'v' },
      backends: [],
      devices: [{ localId: 'x' }],
    });
    expect(describeValidationError(isHello.errors)).toEqual({ field: 'devices.0.platform', reason: 'is required' });
    isHello({ type: 'hello', protocolVersion: 2, host: { id: 'ok-host', name: 'n', os: 'o', arch: 'a', version: 'v', extra: 1 }, backends: [], devices: [] });
    expect(describeValidationError(isHello.errors)).toEqual({ field: 'host.extra', reason: 'is not a known field' });
  });

  it('names an unknown field of an action or a step, whose schemas are closed with unevaluatedProperties', () => {
    const isAction = schemaValidator<Schemas['ActionRequest']>('ActionRequest');
    expect(isAction({ action: 'tap', target: 'Inbox', colour: 'red' })).toBe(false);
    expect(describeValidationError(isAction.errors)).toEqual({ field: 'colour', reason: 'is not a known field' });
    const isDo = schemaValidator<Schemas['DoRequest']>('DoRequest');
    expect(
      isDo({
        steps: [
          { action: 'tap', target: 'Inbox' },
          { action: 'wait', for: 'settled', wiat: 1 },
        ],
      }),
    ).toBe(false);
    expect(describeValidationError(isDo.errors)).toEqual({ field: 'steps.1.wiat', reason: 'is not a known field' });
  });

  it('rejects a device id that could escape its host prefix', () => {
    const isDevice = schemaValidator<Schemas['WorkerDevice']>('WorkerDevice');
    const base = { platform: 'web', backend: 'fake', model: 'm', os: 'o', name: 'n', labels: [], health: 'ready' };
    expect(isDevice({ ...base, localId: 'iphone-15_a' })).toBe(true);
    expect(isDevice({ ...base, localId: '../etc' })).toBe(false);
    expect(isDevice({ ...base, localId: 'a.b' })).toBe(false);
  });
});

describe('every schema in the contract', () => {
  it('compiles under Ajv strict mode (a stray keyword, say from an unquoted comma in YAML, fails here)', () => {
    const names = Object.keys((document.components as any).schemas);
    expect(names.length).toBeGreaterThan(40);
    for (const name of names) expect(() => schemaValidator(name as never), name).not.toThrow();
  });
});
