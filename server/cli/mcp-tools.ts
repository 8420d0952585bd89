// What each tool of `simfleet mcp` does (mcp.ts says what the model sees of them). Each translates
// one or two REST calls, the ones the agent CLI makes, into what a model reads best: the verdict
// and the settled outline as text, never the raw JSON. A refusal is a tool result with isError, a
// line "CODE: message — hint: …" and a structured {code, message, hint, details}, so the model can
// read the code and try again; never a protocol error, which a client shows as a crash instead of
// handing it to the model.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Schemas } from '../../openapi/contract.js';
import { approximateLine } from './answers.js';
import { call, GatewayError, unreachable, type ClientSettings } from './gateway-client.js';

/** Which session a device tool acts on: the one named, else the one session_start began here, else SIMFLEET_SESSION. */
export class SessionChoice {
  started: string | undefined;
  constructor(private readonly fallback: string | undefined) {}

  pick(named: string | undefined): string {
    const id = named ?? this.started ?? this.fallback;
    if (!id)
      throw new Refused({
        code: 'VALIDATION_FAILED',
        message: 'no session to act on',
        hint: 'call session_start first, or pass "session"',
        details: { field: 'session' },
      });
    return id;
  }
}

interface Refusal {
  code: string;
  message: string;
  hint: string | null;
  details: Record<string, unknown> | null;
}

/** A refusal decided here rather than by the gateway, thrown from deep in a tool and reported like one. */
class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

export interface Ctx {
  s: ClientSettings;
  sessions: SessionChoice;
}

// ---------------------------------------------------------------- results

const say = (text: string, structured?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(structured ? { structuredContent: structured } : {}),
});

function refused(r: Refusal, more = ''): CallToolResult {
  const line = `${r.code}: ${r.message}${r.hint ? ` — hint: ${r.hint}` : ''}`;
  return { isError: true, content: [{ type: 'text', text: more ? `${line}\n${more}` : line }], structuredContent: { ...r } };
}

/** Gateway errors and our own refusals become results; anything else is a bug and the SDK reports it. */
export function asResult(err: unknown): CallToolResult {
  if (err instanceof Refused) return refused(err.refusal);
  if (err instanceof GatewayError) return refused({ code: err.code, message: err.message, hint: err.hint ?? null, details: err.details ?? null });
  throw err;
}

function runResult(run: Schemas['DoResult']): CallToolResult {
  const lines = run.steps.map((r) => `${r.index} ${r.status} ${r.detail}`);
  const d = run.divergence;
  if (!d)
    return say([...lines, `done: ${run.completed} steps in ${run.totalMs} ms`, run.outline].join('\n'), {
      completed: run.completed,
      planDigest: run.planDigest,
      screen: run.screen,
    });
  const resume = d.resume.allowed
    ? `to resume once the screen is put right: the same steps with {"from":${d.resume.from},"planDigest":"${d.resume.planDigest}"}`
    : 'this run cannot be resumed';
  const details = { index: d.index, resume: d.resume, expected: d.expected ?? null, ...(d.binding ? { binding: d.binding } : {}) };
  return refused({ code: d.code, message: d.message, hint: d.hint, details }, [...lines, resume, d.outline].join('\n'));
}

function actionText(r: Schemas['ActionResult']): string {
  const motion = r.transition && r.transition.kind !== 'none' ? ` (motion: ${r.transition.kind})` : '';
  const scrolled = r.scrolled
    ? `\nscrolled ${r.scrolled.movedPt ?? 'an unmeasured distance'} of ${r.scrolled.requestedPt} pt asked${r.scrolled.atEnd ? ' — at the end' : ''}`
    : '';
  const escalation = r.escalation ? `\nescalation: ${r.escalation.reason} — simfleet cannot vouch for this outcome; read the outline` : '';
  return `${r.verdict}: ${r.reason}${motion}${scrolled}${escalation}${approximateLine(r)}\n${r.outline}`;
}

function changesText(c: Schemas['Changes']): string {
  const since = `since ${c.mark} (${c.framesSince} frames)`;
  if (c.changed === 'unknown') return `changed: unknown ${since}: ${c.reason ?? 'no frame to compare'}`;
  if (c.changed === 'no') return `changed: no ${since}`;
  const where = c.regions[0] ? `, largest region ${box(c.regions[0])}` : '';
  const motion = c.transition ? `, ${c.transition.kind}` : '';
  return `changed: yes ${since}: ${Math.round(c.fraction * 100)} % of the screen${where}${motion}; settled: ${c.settled}`;
}

const box = (b: Schemas['Box']) => `${b.x},${b.y} ${b.width}×${b.height} pt`;

// ---------------------------------------------------------------- sessions

/** The app to open, said the way the contract says it for each platform. */
function appTarget(platform: Schemas['Platform'], app: string): Schemas['AppTarget'] {
  return platform === 'web' ? { url: app } : platform === 'ios' ? { bundleId: app } : { package: app };
}

/** Long-polls until the session leaves the queue and preparation, or the budget runs out. */
async function untilPlaced(s: ClientSettings, session: Schemas['Session'], budgetMs: number): Promise<Schemas['Session']> {
  const deadline = Date.now() + budgetMs;
  for (let left = budgetMs; (session.state === 'queued' || session.state === 'preparing') && left > 0; left = deadline - Date.now()) {
    const wait = Math.min(20, Math.ceil(left / 1000));
    session = await call<Schemas['Session']>(s, 'GET', `/v1/sessions/${session.id}?wait=${wait}&ifState=${session.state}`);
  }
  return session;
}

export async function sessionStart(
  ctx: Ctx,
  a: { platform: Schemas['Platform']; app?: string | undefined; waitSeconds?: number | undefined },
): Promise<CallToolResult> {
  const waitSeconds = a.waitSeconds ?? 30;
  const body: Schemas['SessionCreate'] = { platform: a.platform, waitSeconds, ...(a.app ? { app: appTarget(a.platform, a.app) } : {}) };
  // The MCP SDK's client gives up on a call after 60 s unless told otherwise, so the default wait
  // stays under that; a session still on its way is kept as this process's one and reported.
  const session = await untilPlaced(ctx.s, await call<Schemas['Session']>(ctx.s, 'POST', '/v1/sessions', body), (waitSeconds + 20) * 1000);
  const facts = { sessionId: session.id, state: session.state };
  if (session.state === 'ended')
    return refused({
      code: 'SESSION_ENDED',
      message: `session ${session.id} ended before it was ready: ${session.endReason}${session.endDetail ? ` (${session.endDetail})` : ''}`,
      hint: 'try again, or another platform or app',
      details: { ...facts, endReason: session.endReason },
    });
  ctx.sessions.started = session.id;
  if (session.state !== 'ready')
    return refused({
      code: 'SESSION_NOT_READY',
      message: `session ${session.id} is still ${session.state}${session.queue ? ` (queue position ${session.queue.position})` : ''}`,
      hint: 'it is kept as this session; device tools answer SESSION_NOT_READY until it is ready — try screen in a while, or session_end',
      details: { ...facts, queue: session.queue },
    });
  const d = session.device!;
  return say(`session ${session.id} ready: ${d.name} (${d.model}, ${d.os}); the device tools now act on it`, { ...facts, device: d });
}

export async function sessionEnd(ctx: Ctx, a: { session?: string | undefined }): Promise<CallToolResult> {
  const id = ctx.sessions.pick(a.session);
  const ended = await call<Schemas['Session']>(ctx.s, 'DELETE', `/v1/sessions/${id}`);
  if (ctx.sessions.started === id) ctx.sessions.started = undefined;
  return say(`session ${id} ${ended.state}${ended.endReason ? ` (${ended.endReason})` : ''}`, {
    sessionId: id,
    state: ended.state,
    endReason: ended.endReason,
  });
}

// ---------------------------------------------------------------- the screen and acting

export async function screen(ctx: Ctx, a: { session?: string | undefined }): Promise<CallToolResult> {
  const outline = await call<Schemas['ScreenOutline']>(ctx.s, 'GET', `/v1/sessions/${ctx.sessions.pick(a.session)}/screen`);
  return say(outline.text);
}

export async function act(ctx: Ctx, { session, ...body }: Schemas['ActionRequest'] & { session?: string | undefined }): Promise<CallToolResult> {
  const r = await call<Schemas['ActionResult']>(ctx.s, 'POST', `/v1/sessions/${ctx.sessions.pick(session)}/actions`, body);
  return say(actionText(r), { verdict: r.verdict, screen: r.screen, escalation: r.escalation?.reason ?? null });
}

export async function runSteps(ctx: Ctx, { session, ...body }: Schemas['DoRequest'] & { session?: string | undefined }): Promise<CallToolResult> {
  return runResult(await call<Schemas['DoResult']>(ctx.s, 'POST', `/v1/sessions/${ctx.sessions.pick(session)}/do`, body));
}

/** One default for every kind of wait: /wait and a /do wait step each have their own otherwise. */
const WAIT_DEFAULT_MS = 10_000;

type WaitArgs = {
  for?: 'settled' | 'visible' | 'not-visible' | undefined;
  target?: string | undefined;
  role?: string | undefined;
  timeoutMs?: number | undefined;
  session?: string | undefined;
};

export async function wait(ctx: Ctx, a: WaitArgs): Promise<CallToolResult> {
  const what = a.for ?? (a.target ? 'visible' : 'settled');
  if (what === 'settled') return waitSettled(ctx, a);
  if (!a.target)
    return refused({
      code: 'VALIDATION_FAILED',
      message: `waiting for ${what} needs a target`,
      hint: 'add "target" (a label, #id or @N)',
      details: { field: 'target' },
    });
  // The /wait route knows nothing of elements; a one-step run has the runner poll the outline.
  const step: Schemas['Step'] = { action: 'wait', for: what, target: a.target, timeoutMs: a.timeoutMs ?? WAIT_DEFAULT_MS, ...(a.role ? { role: a.role } : {}) };
  return runSteps(ctx, { steps: [step], session: a.session });
}

async function waitSettled(ctx: Ctx, a: WaitArgs): Promise<CallToolResult> {
  const body: Schemas['WaitRequest'] = { for: 'settled', timeoutMs: a.timeoutMs ?? WAIT_DEFAULT_MS };
  const w = await call<Schemas['WaitResult']>(ctx.s, 'POST', `/v1/sessions/${ctx.sessions.pick(a.session)}/wait`, body);
  const facts = { status: w.status, waitedMs: w.waitedMs };
  // The same code a /do wait step reports for a screen that never settles.
  if (w.status === 'not-settled')
    return refused({
      code: 'timeout',
      message: `the screen did not settle in ${w.waitedMs} ms${w.movingRegion ? `: ${box(w.movingRegion.box)} kept moving` : ''}`,
      hint: 'something keeps moving (a spinner?): look at it, or wait longer with timeoutMs',
      details: { ...facts, movingRegion: w.movingRegion ?? null },
    });
  return say(w.status === 'settled' ? `settled after ${w.waitedMs} ms` : `no change in ${w.waitedMs} ms: the screen is still`, facts);
}

export async function changes(ctx: Ctx, a: { since?: string | undefined; session?: string | undefined }): Promise<CallToolResult> {
  const id = ctx.sessions.pick(a.session);
  if (!a.since) {
    const m = await call<Schemas['MarkCreated']>(ctx.s, 'POST', `/v1/sessions/${id}/marks`);
    return say(`mark ${m.mark} taken${m.frame ? ` on frame ${m.frame.seq}` : ' (no frame yet)'}; after acting, call changes with {"since":"${m.mark}"}`, {
      mark: m.mark,
    });
  }
  const c = await call<Schemas['Changes']>(ctx.s, 'GET', `/v1/sessions/${id}/changes?since=${encodeURIComponent(a.since)}`);
  return say(changesText(c), { mark: c.mark, changed: c.changed, settled: c.settled, fraction: c.fraction });
}

type LookArgs = {
  scale?: number | undefined;
  crop?: Schemas['Box'] | undefined;
  format?: 'jpeg' | 'png' | undefined;
  quality?: number | undefined;
  session?: string | undefined;
};

/** The image comes as bytes, not JSON, so this one call is made here rather than through `call`. */
export async function look(ctx: Ctx, a: LookArgs): Promise<CallToolResult> {
  const q = lookQuery(a);
  const url = new URL(`/v1/sessions/${ctx.sessions.pick(a.session)}/look${q.size ? `?${q}` : ''}`, ctx.s.gatewayUrl);
  const res = await fetch(url, { headers: { authorization: `Bearer ${ctx.s.token}` } }).catch((err: Error) => {
    throw unreachable(ctx.s.gatewayUrl, err);
  });
  if (!res.ok) {
    const e = ((await res.json().catch(() => ({}))) as Partial<Schemas['Error']>).error;
    return refused({ code: e?.code ?? String(res.status), message: e?.message ?? res.statusText, hint: e?.hint ?? null, details: e?.details ?? null });
  }
  const data = Buffer.from(await res.arrayBuffer()).toString('base64');
  const h = (name: string) => res.headers.get(`x-simfleet-${name}`);
  const info = `${h('width')}×${h('height')} px at ${h('scale')} px/pt (the device has ${h('device-scale')}), crop ${h('crop')} in points (x,y,width,height), pixels ${h('age-ms')} ms old${h('source') === 'stream' ? ", from the frame stream (the screen's last repaint: a fresh capture stalled)" : ''}`;
  return {
    content: [
      { type: 'image', data, mimeType: res.headers.get('content-type')?.split(';')[0] ?? 'image/jpeg' },
      { type: 'text', text: info },
    ],
  };
}

function lookQuery(a: LookArgs): URLSearchParams {
  const q = new URLSearchParams();
  if (a.scale !== undefined) q.set('scale', String(a.scale));
  if (a.crop) q.set('crop', [a.crop.x, a.crop.y, a.crop.width, a.crop.height].join(','));
  if (a.format) q.set('format', a.format);
  if (a.quality !== undefined) q.set('quality', String(a.quality));
  return q;
}

export async function replay(ctx: Ctx, { session, ...body }: Schemas['ReplayRequest'] & { session?: string | undefined }): Promise<CallToolResult> {
  return runResult(await call<Schemas['DoResult']>(ctx.s, 'POST', `/v1/sessions/${ctx.sessions.pick(session)}/replay`, body));
}

export async function permission(ctx: Ctx, { session, ...body }: Schemas['PermissionRequest'] & { session?: string | undefined }): Promise<CallToolResult> {
  const r = await call<Schemas['PermissionResult']>(ctx.s, 'POST', `/v1/sessions/${ctx.sessions.pick(session)}/permissions`, body);
  const skipped = r.skipped?.length ? ` (the app does not request ${r.skipped.join(', ')})` : '';
  return say(`${r.action} ${r.permission} for ${r.app ?? 'the device'}: ${r.applied.join(', ')}${skipped}${r.note ? `. ${r.note}` : ''}`, { ...r });
}
