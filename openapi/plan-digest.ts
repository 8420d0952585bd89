// Part of the contract: the digest that binds a resumed run to the plan that stopped. The same steps,
// in the same order, with the same fields, give the same digest whatever order their keys were
// written in; the worker that runs a plan and the gateway that saves a flow compute it alike.
import { createHash } from 'node:crypto';

export function planDigest(steps: readonly unknown[]): string {
  return createHash('sha256').update(canonical(steps)).digest('hex').slice(0, 32);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}
