// A flow's header (the document before `---`) and `env:` maps, wherever they appear.
import { Options, scalarText } from './options.js';
import type { CommandContext, YMap, YNode } from './types.js';

export interface Header {
  appId: string | null;
  name: string | null;
  env: Record<string, string>;
}

/** ctx.env holds the variables the header's own values may use (the caller's, the including flow's). */
export function readHeader(node: YMap | null, ctx: CommandContext): Header {
  if (!node) return { appId: null, name: null, env: {} };
  const o = new Options(node, ctx);
  // a web flow names its page with url where a native flow names its app with appId
  const app = o.str('appId');
  const url = o.str('url');
  const appId = app ?? url ?? null;
  const name = o.str('name') ?? null;
  const envNode = o.raw('env');
  const env = envNode ? readEnv(envNode, ctx, 'env') : {};
  o.raw('tags'); // labels for choosing flows to run; they change nothing in a run
  o.raw('properties');
  o.unsupported(['onFlowStart', 'onFlowComplete'], 'hooks run outside the steps simfleet is given');
  o.unsupported(['jsEngine'], 'simfleet runs no JavaScript');
  o.finish();
  return { appId, name, env };
}

/** `env: {KEY: value}`: values are substituted with the variables already in force. */
export function readEnv(node: YNode, ctx: CommandContext, option: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (node.kind !== 'map') {
    ctx.report(`option '${option}' must be a map of NAME: value`, option, node.line);
    return env;
  }
  for (const e of node.entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(e.key)) {
      ctx.report(`variable name "${e.key}" is not a plain identifier`, option, e.line);
      continue;
    }
    const value = scalarText(e.value, ctx, option);
    if (value !== undefined) env[e.key] = value;
  }
  return env;
}
