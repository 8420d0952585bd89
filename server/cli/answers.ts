// Lines the command line and the MCP server both add to an action's answer.
import type { Schemas } from '../../openapi/contract.js';

/** A target taken by its nearest label is said, so that a typo is seen rather than silently acted on. */
export function approximateLine(r: Schemas['ActionResult']): string {
  if (!r.match?.approximate || !r.target) return '';
  return `\napproximate match: no element is labelled ${JSON.stringify(r.match.asked)}; acted on ${r.target.role} ${JSON.stringify(r.target.label)}`;
}
