// `simfleet mcp`: an MCP server on stdio for AI agents. Like the agent CLI it is only a client of
// the gateway's REST API (SIMFLEET_URL, SIMFLEET_TOKEN). This file is what the model sees: the
// tools' names, descriptions and input schemas; mcp-tools.ts is what they do. stdout is the
// protocol channel, so nothing else may write to it: problems go to stderr or into tool results.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { document, type Schemas } from '../../openapi/contract.js';
import { version } from '../paths.js';
import { UsageError } from './args.js';
import { clientSettings, type ClientSettings } from './gateway-client.js';
import { act, asResult, changes, look, permission, replay, runSteps, screen, sessionEnd, sessionStart, SessionChoice, wait, type Ctx } from './mcp-tools.js';

export async function runMcp(env: NodeJS.ProcessEnv): Promise<void> {
  const settings = clientSettings(env, {});
  if (!settings) throw new UsageError('no token: set SIMFLEET_TOKEN to an agent token of your team (and SIMFLEET_URL to the gateway)');
  const server = new McpServer({ name: 'simfleet', version }, { instructions: INSTRUCTIONS });
  registerTools(server, settings, new SessionChoice(env.SIMFLEET_SESSION));
  await server.connect(new StdioServerTransport());
  // The transport does not notice its client going away; without this the process would linger
  // until the client's kill timer, holding nothing but an idle socket to the gateway.
  process.stdin.once('end', () => void server.close().finally(() => process.exit(0)));
}

const INSTRUCTIONS = `simfleet drives a remote mobile device (web, Android, iOS) for you.
Start with session_start, read the screen with screen (a text outline: one element a line, @N refs),
then act or do; every action answers a verdict and the settled outline, so you rarely need screen
again. Use look only when the outline is not enough: it is the one tool that returns pixels.
A refusal (NO_MATCH, AMBIGUOUS, STALE_REF, ...) is a tool error with a code and a hint: read it
and retry with a better target. End with session_end.`;

// ---------------------------------------------------------------- input schemas

/**
 * Each field is typed as the contract types it, so that a change to the contract breaks the build
 * here instead of sending the gateway what it no longer accepts. Limits (lengths, ranges) are left
 * to the gateway, whose VALIDATION_FAILED names the field: one place decides them.
 */
type FieldsOf<T> = { [K in keyof T]?: z.ZodType<T[K]> };

/** An enum's values read from the contract document: the tools offer exactly what the gateway accepts. */
function contractEnum<K extends keyof Schemas & string>(name: K): [Schemas[K] & string, ...(Schemas[K] & string)[]] {
  const schemas = (document.components as { schemas: Record<string, { enum?: string[] }> }).schemas;
  const values = schemas[name]?.enum;
  if (!values?.length) throw new Error(`the contract has no enum named ${name}`);
  return values as [Schemas[K] & string, ...(Schemas[K] & string)[]];
}

const SESSION = { session: z.string().min(1).optional().describe('session id; default: the one session_start began, else SIMFLEET_SESSION') };
const targetText = z.string().min(1);

const ACTION_FIELDS = {
  target: targetText.optional().describe('@N from the last outline, #N list row, #id, a label, or "x,y" in points'),
  role: z.string().optional().describe('with a label: only elements of this role (tab, button, switch, textfield, ...)'),
  index: z.number().int().optional().describe('with a label several elements carry: which one, 0 first in reading order'),
  or: z.array(targetText).optional().describe('fallback targets, tried in order when target matches nothing'),
  text: z.string().optional().describe('type: the text'),
  direction: z
    .enum(contractEnum('Direction'))
    .optional()
    .describe('swipe: the way the finger moves; scroll: the way the content travels (down = towards the end)'),
  distance: z.number().optional().describe('scroll, swipe: points'),
  to: targetText.optional().describe('scroll: the element to bring into view; drag, swipe: where the finger ends'),
  url: z.string().optional().describe('open: the URL'),
  key: z.string().optional().describe('key: Enter, Backspace, Tab, Escape, ArrowDown, ...'),
  count: z.number().int().optional().describe('clear: how many characters (default all)'),
  scale: z.number().optional().describe('pinch: above 1 spreads the fingers'),
  degrees: z.number().optional().describe('rotate: clockwise degrees'),
  timeoutMs: z.number().int().optional().describe('how long to wait for the screen to settle (default 5000)'),
} satisfies FieldsOf<Schemas['ActionFields']>;

const STEP = z
  .object({
    action: z.enum(contractEnum('StepKind')),
    ...ACTION_FIELDS,
    for: z.enum(['visible', 'not-visible', 'settled']).optional().describe('wait: what to wait for'),
    that: z.enum(['visible', 'not-visible', 'value']).optional().describe('assert: what must hold'),
    value: z.string().optional().describe('assert that value: the expected value'),
    fields: z
      .array(z.object({ target: targetText, value: z.string() }).strict())
      .optional()
      .describe('fill: the fields of a long form'),
    submit: targetText.optional().describe('fill: the control that submits the form'),
    allowDestructive: z.boolean().optional().describe('this step may touch a destructive-looking control (delete, pay, submit, sign out)'),
    optional: z.boolean().optional().describe('a failure of this step is reported and the run goes on'),
    note: z.string().optional(),
  } satisfies FieldsOf<Schemas['Step']>)
  .strict();

const RESUME = {
  from: z.number().int().optional().describe("resume a stopped run at this step (the report's resume.from)"),
  planDigest: z.string().optional().describe("with from: the report's resume.planDigest"),
};

// ---------------------------------------------------------------- registration

const READS: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

function registerTools(server: McpServer, s: ClientSettings, sessions: SessionChoice): void {
  const ctx: Ctx = { s, sessions };
  // Strict objects: a misspelt argument is refused by name instead of being dropped unseen.
  const add = <S extends z.ZodRawShape>(
    name: string,
    description: string,
    shape: S,
    run: (ctx: Ctx, args: z.infer<z.ZodObject<S>>) => Promise<CallToolResult>,
    annotations?: ToolAnnotations,
  ) => {
    const inputSchema = z.object(shape).strict();
    server.registerTool<z.ZodType, typeof inputSchema>(name, { description, inputSchema, ...(annotations ? { annotations } : {}) }, async (args) => {
      try {
        return await run(ctx, args);
      } catch (err) {
        return asResult(err);
      }
    });
  };

  add(
    'session_start',
    'Lease a device and open an app on it; the other tools then act on this session. Answers once the device is ready (waiting up to waitSeconds in the queue). Without app, a web session opens the sample app. Example: {"platform":"web","app":"https://example.com/"}',
    {
      platform: z.enum(contractEnum('Platform')).default('web'),
      app: z.string().min(1).optional().describe('web: a URL; ios: a bundle id; android: a package name'),
      waitSeconds: z.number().int().min(0).optional().describe('how long to wait for a free device (default 30)'),
    },
    sessionStart,
  );
  add('session_end', 'Release the session and its device. Example: {}', SESSION, sessionEnd, { destructiveHint: true, openWorldHint: false });
  add(
    'screen',
    'What is on screen now, as a compact outline: a header (device, size, screen id and "title"), then one element a line: @ref, role, tap point x,y in points, "label", = value, #id and states. Refs, list rows (#N), labels and x,y are the targets act and do take. Example: {}',
    SESSION,
    screen,
    READS,
  );
  add(
    'act',
    'One action on the device; answers its verdict (ok, no-visible-change, not-delivered, unexpected-screen, unverified) and the settled outline with fresh refs. action: tap, double-tap, long-press, type (text; into target, else the focused field), clear, swipe (direction), scroll (direction and distance, or to), drag (target to to), pinch (scale), rotate (degrees), key, back, open (url), launch. Example: {"action":"tap","target":"Settings","role":"tab"}',
    // `action`, as in REST's POST /actions and in do's steps: one word for it everywhere.
    { action: z.enum(contractEnum('ActionKind')), ...ACTION_FIELDS, ...SESSION },
    act,
  );
  add(
    'do',
    'Several steps in one call, each settled and verified. Steps take act\'s fields, plus wait (for, target), assert (that: visible, not-visible or value) and fill (fields, submit). A failing step stops the run with the reason, the outline and how to resume. Example: {"steps":[{"action":"tap","target":"Long form"},{"action":"type","target":"Full name","text":"Ada"},{"action":"assert","that":"value","target":"Full name","value":"Ada"}]}',
    { steps: z.array(STEP).min(1), ...RESUME, ...SESSION },
    runSteps,
  );
  add(
    'wait',
    'Wait until the screen settles (the default), or until target is visible or not-visible. Example: {"for":"visible","target":"Saved","timeoutMs":5000}',
    {
      for: z.enum(['settled', 'visible', 'not-visible']).optional(),
      target: ACTION_FIELDS.target,
      role: ACTION_FIELDS.role,
      timeoutMs: z.number().int().optional().describe('default 10000'),
      ...SESSION,
    },
    wait,
    READS,
  );
  add(
    'changes',
    'What changed on screen since a mark, answered from frames already seen. Without since it takes a mark and returns its id: call it before something, then with since after. Example: {"since":"mk_3c37d77b03a2"}',
    { since: z.string().optional().describe('a mark id from an earlier changes call'), ...SESSION },
    changes,
    READS,
  );
  add(
    'look',
    'The screen as an image: the only tool that returns pixels; use it when the outline is not enough (icons, colours, layout). One image pixel per point unless scale says more; crop in points. Example: {"crop":{"x":0,"y":0,"width":393,"height":200},"scale":2}',
    {
      scale: z.number().optional().describe("image pixels per point (default 1, at most the device's own)"),
      crop: z
        .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() } satisfies FieldsOf<Schemas['Box']>)
        .strict()
        .optional()
        .describe('the part of the screen to see, in points'),
      format: z.enum(['jpeg', 'png']).optional().describe('default jpeg'),
      quality: z.number().int().optional().describe('jpeg quality 1-100 (default 80)'),
      ...SESSION,
    },
    look,
    READS,
  );
  add(
    'permission',
    'Grant, revoke or reset a permission of the session\'s app, so no system prompt needs tapping (or to test the path where access was refused). Each platform sets what it can; one it cannot is refused with PERMISSION_UNSUPPORTED listing those it can. Example: {"action":"grant","permission":"location"}',
    {
      action: z.enum(['grant', 'revoke', 'reset']).describe("reset: not decided, so the app's next request prompts again"),
      permission: z.enum(contractEnum('PermissionName')),
      ...SESSION,
    },
    permission,
  );
  add(
    'flow_replay',
    'Replay a saved flow (recorded with `simfleet flow record`/`save`) on the device with no model calls; each step checks it touches the recorded element, and a mismatch stops the run before the touch, with how to resume. Example: {"flow":"checkout"}',
    {
      flow: z.string().min(1).describe('the flow name'),
      app: z.string().optional().describe("the flow's app (default: the app in the foreground)"),
      version: z.number().int().optional().describe('default: the newest'),
      ...RESUME,
      ...SESSION,
    },
    replay,
  );
}
