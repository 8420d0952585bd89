// The simfleet commands an agent or a person drives a device with, over the gateway's REST API:
// sessions, the screen, actions, runs of steps, waits, marks, look and flows. Each prints what a
// reader needs (the verdict and the settled outline) or, with --json, the API's answer as is. Exit
// codes: 0 done, 1 failed (a device or server error, a run that stopped), 2 bad usage, 3 refused
// (the request was understood and refused: nothing matched, two things did, a stale ref, a
// destructive step, another plan's digest).
import { readFile, writeFile } from 'node:fs/promises';
import type { Schemas } from '../../openapi/contract.js';
import { parseFlags, UsageError } from './args.js';
import { call, clientSettings, GatewayError, type ClientSettings } from './gateway-client.js';
import { approximateLine } from './answers.js';

export const AGENT_COMMANDS = [
  'session',
  'ui',
  'tap',
  'type',
  'swipe',
  'scroll',
  'back',
  'open',
  'do',
  'wait',
  'mark',
  'changes',
  'look',
  'permission',
  'flow',
] as const;

export const AGENT_HELP = `  session    new [--platform web|android|ios] [--app URL] | list | end [ID]
  ui         the screen's outline (text; --json for the elements)
  tap        TARGET [--role R] [--index N]      (also: type TEXT [--into TARGET], swipe DIR,
             scroll DIR [--distance PT] | scroll --to TARGET, back, open URL)
  do         FILE|-: a JSON list of steps (or {"steps": [...]}) in one call
  wait       [--for settled|visible|not-visible] [--target T] [--timeout MS]
  mark       take a mark;  changes [--since MARK]: what changed since it
  look       [--out FILE] [--scale S] [--crop x,y,w,h] [--format jpeg|png]
  permission grant|revoke|reset NAME: location, location-always, camera, microphone, contacts,
             photos, calendar, reminders, motion, notifications or all, for the session's app
  flow       record NAME | save | discard | list | replay NAME [--from N --plan-digest D]
             (every device command takes --session ID, or SIMFLEET_SESSION; --json prints
             the API's answer; SIMFLEET_URL and SIMFLEET_TOKEN say where and who)
`;

/** Error codes that mean "understood, and refused": exit 3, distinct from failures. */
const REFUSALS = new Set([
  'NO_MATCH',
  'AMBIGUOUS',
  'STALE_REF',
  'DESTRUCTIVE_REFUSED',
  'PLAN_CHANGED',
  'RECORDING_ACTIVE',
  'EMPTY_RECORDING',
  'MAESTRO_UNSUPPORTED',
  'LOOK_UNAVAILABLE',
  'PERMISSION_UNSUPPORTED',
  'FORBIDDEN',
  'ORIGIN_NOT_ALLOWED',
]);

export interface AgentIo {
  out(text: string): void;
  err(text: string): void;
}

const FLAGS = [
  'session',
  'role',
  'index',
  'into',
  'distance',
  'to',
  'for',
  'target',
  'timeout',
  'since',
  'out',
  'scale',
  'crop',
  'format',
  'platform',
  'app',
  'wait',
  'from',
  'plan-digest',
  'gateway',
  'token',
];

export async function runAgentCommand(command: string, argv: string[], env: NodeJS.ProcessEnv, io: AgentIo): Promise<number> {
  const { flags, bools, positionals } = parseFlags(argv, FLAGS, ['json']);
  const s = clientSettings(env, flags);
  if (!s) throw new UsageError('no token: set SIMFLEET_TOKEN (or pass --token) to an agent token of your team');
  const json = bools.json === true;
  const session = () => {
    const id = flags.session ?? env.SIMFLEET_SESSION;
    if (!id) throw new UsageError(`${command} needs --session ID (or SIMFLEET_SESSION)`);
    return id;
  };
  const print = (value: unknown, text: string) => io.out(json ? `${JSON.stringify(value, null, 2)}\n` : text.endsWith('\n') ? text : `${text}\n`);
  try {
    switch (command) {
      case 'session':
        return await sessionCommand(positionals, flags, s, print, env);
      case 'ui': {
        const outline = await call<Schemas['ScreenOutline']>(s, 'GET', `/v1/sessions/${session()}/screen`, undefined, 'application/json');
        print(outline, outline.text);
        return 0;
      }
      case 'tap':
      case 'type':
      case 'swipe':
      case 'scroll':
      case 'back':
      case 'open':
        return await action(command, positionals, flags, s, session(), print);
      case 'do': {
        const file = positionals[0];
        if (!file) throw new UsageError('do needs FILE (JSON steps), or - for stdin');
        const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (err) {
          throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
        }
        const body = Array.isArray(parsed) ? { steps: parsed } : parsed;
        const run = await call<Schemas['DoResult']>(s, 'POST', `/v1/sessions/${session()}/do`, body);
        print(run, runText(run));
        return run.divergence ? 1 : 0;
      }
      case 'wait': {
        const forWhat = flags.for ?? (flags.target ? 'visible' : 'settled');
        const step = {
          action: 'wait',
          for: forWhat,
          ...(flags.target ? { target: flags.target } : {}),
          ...(flags.timeout ? { timeoutMs: int(flags.timeout, 'timeout') } : {}),
        };
        const run = await call<Schemas['DoResult']>(s, 'POST', `/v1/sessions/${session()}/do`, { steps: [step] });
        print(run, run.divergence ? `not met: ${run.divergence.message}` : run.steps[0]!.detail);
        return run.divergence ? 1 : 0;
      }
      case 'mark': {
        const mark = await call<Schemas['MarkCreated']>(s, 'POST', `/v1/sessions/${session()}/marks`);
        print(mark, mark.mark);
        return 0;
      }
      case 'changes': {
        const c = await call<Schemas['Changes']>(
          s,
          'GET',
          `/v1/sessions/${session()}/changes${flags.since ? `?since=${encodeURIComponent(flags.since)}` : ''}`,
        );
        print(
          c,
          `changed: ${c.changed}${c.changed === 'yes' ? ` (${Math.round(c.fraction * 100)} % of the screen${c.transition ? `, ${c.transition.kind}` : ''})` : ''}; settled: ${c.settled}`,
        );
        return 0;
      }
      case 'look':
        return await lookCommand(flags, s, session(), print);
      case 'permission': {
        const [act, name] = positionals;
        if (!act || !name) throw new UsageError('permission needs grant|revoke|reset and a NAME (location, camera, …)');
        const r = await call<Schemas['PermissionResult']>(s, 'POST', `/v1/sessions/${session()}/permissions`, { action: act, permission: name });
        print(
          r,
          `${r.action} ${r.permission} for ${r.app ?? 'the device'}: ${r.applied.join(', ')}${r.skipped?.length ? ` (not requested by the app: ${r.skipped.join(', ')})` : ''}${r.note ? `\nnote: ${r.note}` : ''}`,
        );
        return 0;
      }
      case 'flow':
        return await flowCommand(positionals, flags, s, session, print);
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    io.err(`simfleet: ${err.code}: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ''}\n`);
    if (json) io.out(`${JSON.stringify({ error: { code: err.code, message: err.message, hint: err.hint ?? null } })}\n`);
    return err.code === 'VALIDATION_FAILED' ? 2 : REFUSALS.has(err.code) ? 3 : 1;
  }
}

type Print = (value: unknown, text: string) => void;

async function sessionCommand(
  positionals: string[],
  flags: Record<string, string | undefined>,
  s: ClientSettings,
  print: Print,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const [sub, arg] = positionals;
  if (sub === 'new') {
    const platform = flags.platform ?? 'web';
    const body = { platform, waitSeconds: flags.wait ? int(flags.wait, 'wait') : 60, ...(flags.app ? { app: { url: flags.app } } : {}) };
    let session = await call<Schemas['Session']>(s, 'POST', '/v1/sessions', body);
    const deadline = Date.now() + (body.waitSeconds + 60) * 1000;
    while (session.state !== 'ready' && session.state !== 'ended' && Date.now() < deadline)
      session = await call<Schemas['Session']>(s, 'GET', `/v1/sessions/${session.id}?wait=20`);
    if (session.state === 'ended')
      throw new GatewayError(
        0,
        'SESSION_ENDED',
        `session ${session.id} ended before it was ready: ${session.endReason}${session.endDetail ? ` (${session.endDetail})` : ''}`,
        'try again later, with a longer --wait, or another platform',
      );
    if (session.state !== 'ready')
      throw new GatewayError(0, 'SESSION_NOT_READY', `session ${session.id} is ${session.state}`, 'simfleet session list shows it');
    print(session, session.id);
    return 0;
  }
  if (sub === 'list') {
    const { sessions } = await call<{ sessions: Schemas['Session'][] }>(s, 'GET', '/v1/sessions');
    print(
      { sessions },
      sessions.map((x) => `${x.id}  ${x.state.padEnd(9)} ${x.platform}${x.device ? `  ${x.device.model}` : ''}`).join('\n') || '(no sessions)',
    );
    return 0;
  }
  if (sub === 'end') {
    const id = arg ?? flags.session ?? env.SIMFLEET_SESSION;
    if (!id) throw new UsageError('session end needs the session id');
    const ended = await call<Schemas['Session']>(s, 'DELETE', `/v1/sessions/${id}`);
    print(ended, `${ended.id} ${ended.state}`);
    return 0;
  }
  throw new UsageError('session new | list | end [ID]');
}

async function action(
  kind: string,
  positionals: string[],
  flags: Record<string, string | undefined>,
  s: ClientSettings,
  id: string,
  print: Print,
): Promise<number> {
  const [arg] = positionals;
  const need = (what: string) => {
    if (!arg) throw new UsageError(`${kind} needs ${what}`);
    return arg;
  };
  const body: Record<string, unknown> = { action: kind };
  if (kind === 'tap')
    Object.assign(
      body,
      { target: need('a target (@N, #id, a label, x,y)') },
      flags.role ? { role: flags.role } : {},
      flags.index ? { index: int(flags.index, 'index') } : {},
    );
  if (kind === 'type') Object.assign(body, { text: need('the text') }, flags.into ? { target: flags.into } : {});
  if (kind === 'swipe') body.direction = need('a direction (up, down, left, right)');
  if (kind === 'scroll') {
    if (flags.to) body.to = flags.to;
    else body.direction = need('a direction (up, down, left, right), or --to TARGET');
    if (flags.distance) body.distance = Number(flags.distance);
  }
  if (kind === 'open') body.url = need('a URL');
  const r = await call<Schemas['ActionResult']>(s, 'POST', `/v1/sessions/${id}/actions`, body);
  print(r, `${r.verdict}: ${r.reason}${r.escalation ? `\nescalation: ${r.escalation.reason}` : ''}${approximateLine(r)}\n${r.outline}`);
  return 0;
}

async function lookCommand(flags: Record<string, string | undefined>, s: ClientSettings, id: string, print: Print): Promise<number> {
  const q = new URLSearchParams();
  for (const k of ['scale', 'crop', 'format'] as const) if (flags[k]) q.set(k, flags[k]!);
  const res = await fetch(new URL(`/v1/sessions/${id}/look${q.size ? `?${q}` : ''}`, s.gatewayUrl), { headers: { authorization: `Bearer ${s.token}` } });
  if (!res.ok) {
    const e = ((await res.json().catch(() => ({}))) as Partial<Schemas['Error']>).error;
    throw new GatewayError(res.status, e?.code ?? String(res.status), e?.message ?? res.statusText, e?.hint);
  }
  const image = Buffer.from(await res.arrayBuffer());
  const out = flags.out ?? `look-${id}.${flags.format === 'png' ? 'png' : 'jpg'}`;
  await writeFile(out, image);
  const info = {
    file: out,
    bytes: image.length,
    width: Number(res.headers.get('x-simfleet-width')),
    height: Number(res.headers.get('x-simfleet-height')),
    scale: Number(res.headers.get('x-simfleet-scale')),
    crop: res.headers.get('x-simfleet-crop'),
    ageMs: Number(res.headers.get('x-simfleet-age-ms')),
    source: res.headers.get('x-simfleet-source'),
  };
  print(
    info,
    `${out}: ${info.width}×${info.height} px at ${info.scale} px/pt, crop ${info.crop}${info.source === 'stream' ? `, from the frame stream (${info.ageMs} ms old: a fresh capture stalled)` : ''}`,
  );
  return 0;
}

async function flowCommand(
  positionals: string[],
  flags: Record<string, string | undefined>,
  s: ClientSettings,
  session: () => string,
  print: Print,
): Promise<number> {
  const [sub, name] = positionals;
  switch (sub) {
    case 'record': {
      if (!name) throw new UsageError('flow record needs a NAME');
      const r = await call<Schemas['Recording']>(s, 'POST', `/v1/sessions/${session()}/recording`, { name });
      print(r, `recording ${r.name} on ${r.sessionId}`);
      return 0;
    }
    case 'save': {
      const f = await call<Schemas['Flow']>(s, 'POST', `/v1/sessions/${session()}/recording/save`);
      print(f, `saved ${f.summary.name} v${f.summary.version}: ${f.summary.steps} steps, ${f.summary.verifiedSteps} verified`);
      return 0;
    }
    case 'discard':
      await call(s, 'DELETE', `/v1/sessions/${session()}/recording`);
      print({ discarded: true }, 'discarded');
      return 0;
    case 'list': {
      const { flows } = await call<{ flows: Schemas['FlowSummary'][] }>(s, 'GET', '/v1/flows');
      print({ flows }, flows.map((f) => `${f.name} v${f.version}  ${f.steps} steps  ${f.app}`).join('\n') || '(no flows)');
      return 0;
    }
    case 'replay': {
      if (!name) throw new UsageError('flow replay needs a NAME');
      const body = {
        flow: name,
        ...(flags.from ? { from: int(flags.from, 'from') } : {}),
        ...(flags['plan-digest'] ? { planDigest: flags['plan-digest'] } : {}),
      };
      const run = await call<Schemas['DoResult']>(s, 'POST', `/v1/sessions/${session()}/replay`, body);
      print(run, runText(run));
      return run.divergence ? 1 : 0;
    }
    default:
      throw new UsageError('flow record NAME | save | discard | list | replay NAME');
  }
}

function runText(run: Schemas['DoResult']): string {
  const lines = run.steps.map((r) => `${String(r.index).padStart(3)} ${r.status.padEnd(7)} ${r.detail}`);
  const d = run.divergence;
  if (d)
    lines.push(
      `stopped at step ${d.index}: ${d.code}: ${d.message}`,
      `hint: ${d.hint}`,
      `resume: --from ${d.resume.from} --plan-digest ${d.resume.planDigest}`,
      d.outline,
    );
  else lines.push(`done: ${run.completed} steps in ${run.totalMs} ms`, run.outline);
  return lines.join('\n');
}

function int(v: string, name: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} takes a whole number`);
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
