// A flow's header (the document before `---`) and `env:` maps, wherever they appear.
import { Options, scalarText } from './options.js';
import type { CommandContext, YMap, YNode } from './types.js';

export interface Header {
  appId: string | null;
  name: string | null;
  env: Record<string, string>;
  /** the hooks' command lists, expanded by the caller around the flow's own commands */
  onFlowStart?: YNode;
  onFlowComplete?: YNode;
}

/** Header keys Maestro reads as extensions; simfleet notes why each changes nothing here. */
const IGNORED: Record<string, string> = {
  androidWebViewHierarchy: 'simfleet reads web views through the accessibility tree whatever this says',
  jsEngine: 'simfleet has one way of running scripts',
  properties: 'properties label a flow in reports and change nothing in a run',
};

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
  const onFlowStart = hook(o, 'onFlowStart');
  const onFlowComplete = hook(o, 'onFlowComplete');
  // Maestro keeps any other key as an extension (YamlConfig's JsonAnySetter): noted, never refused
  for (const e of node.entries) {
    if (o.seen(e.key)) continue;
    o.raw(e.key);
    ctx.note(`header key '${e.key}' is accepted and ignored (${IGNORED[e.key] ?? 'Maestro keeps unknown keys as extensions'})`, e.key, e.line);
  }
  return { appId, name, env, ...(onFlowStart ? { onFlowStart } : {}), ...(onFlowComplete ? { onFlowComplete } : {}) };
}

/** A hook is a list of commands (YamlOnFlowStart and YamlOnFlowComplete delegate to one). */
function hook(o: Options, key: string): YNode | undefined {
  const node = o.raw(key);
  if (!node || node.kind === 'seq') return node;
  o.refuse(key, `option '${key}' must be a list of commands`);
  return undefined;
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
