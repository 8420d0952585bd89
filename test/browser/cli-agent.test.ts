/// <reference lib="dom" />
// The agent CLI against a real gateway, a worker and Chromium: a session, a 5-step task on the
// sample app through tap/scroll/type/do/wait with --json answers checked, look to a file, a flow
// recorded and replayed, a permission set for the page, and exit codes that tell a refusal (3) from
// a failure (1) and bad usage (2).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebDevice } from '../../workers/devices/web/device.js';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { webFarm } from '../helpers/web-device.js';

const CLI = new URL('../../dist/server/cli/main.js', import.meta.url).pathname;
let farm: Farm;
let provider: WebProvider;
let token: string;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  token = (await farm.token('agent', 'cli')).token!;
}, 120_000); // a farm, a worker and Chromium starting beside another browser suite on 2 cores once took over 60 s in CI
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

function simfleet(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { timeout: 120_000, env: { ...process.env, SIMFLEET_URL: farm.gateway.url, SIMFLEET_TOKEN: token, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}
const json = async (args: string[], env: Record<string, string>) => {
  const r = await simfleet([...args, '--json'], env);
  expect(r.code, `${args.join(' ')}: ${r.stderr}${r.stdout.slice(0, 300)}`).toBe(0);
  return JSON.parse(r.stdout);
};

describe('the agent CLI', () => {
  it('drives a 5-step task on the sample app, looks, records and replays, with --json answers', async () => {
    const created = await simfleet(['session', 'new', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const session = JSON.parse(created.stdout);
    expect(session).toMatchObject({ state: 'ready', platform: 'web' });
    const env = { SIMFLEET_SESSION: session.id };
    try {
      await json(['wait', '--for', 'settled'], env);
      expect((await simfleet(['flow', 'record', 'cli-tour'], env)).code).toBe(0);

      const tab = await json(['tap', 'Settings', '--role', 'tab'], env);
      expect(tab).toMatchObject({ action: 'tap', target: { label: 'Settings', role: 'tab' }, screen: { name: 'Settings' } });
      const scrolled = await json(['scroll', '--to', 'Long form'], env);
      expect(scrolled.target).toMatchObject({ label: 'Long form' });
      const steps = join(await mkdtemp(join(tmpdir(), 'sf-cli-')), 'steps.json');
      await writeFile(
        steps,
        JSON.stringify([
          { action: 'tap', target: 'Long form' },
          { action: 'tap', target: 'Full name', role: 'textfield' },
        ]),
      );
      const run = await json(['do', steps], env);
      expect(run).toMatchObject({ completed: 2, divergence: null, screen: { name: 'Long form' } });
      const typed = await json(['type', 'Grace Hopper'], env);
      expect(typed.verdict).not.toBe('no-visible-change');
      const ui = await json(['ui'], env);
      expect(ui.elements.find((e: { label: string }) => e.label === 'Full name')).toMatchObject({ value: 'Grace Hopper' });
      const text = await simfleet(['ui'], env);
      expect(text.stdout).toMatch(/textfield .*"Full name" = "Grace Hopper"/);

      const out = join(await mkdtemp(join(tmpdir(), 'sf-cli-')), 'screen.png');
      const looked = await json(['look', '--out', out, '--format', 'png'], env);
      expect(looked).toMatchObject({ file: out, width: 393, height: 852, scale: 1 });
      expect((await readFile(out)).subarray(1, 4).toString()).toBe('PNG');

      const saved = await json(['flow', 'save'], env);
      expect(saved.summary).toMatchObject({ name: 'cli-tour', steps: 5 });
      expect((await json(['flow', 'list'], env)).flows.map((f: { name: string }) => f.name)).toContain('cli-tour');
      // Back where the flow starts (a fresh load of the app, not a hash change that keeps its
      // stacks), and replayed from the CLI.
      await json(['open', `${provider.sampleUrl}?again=1#/inbox`], env);
      const replay = await json(['flow', 'replay', 'cli-tour'], env);
      expect(replay.divergence, JSON.stringify(replay.divergence)?.slice(0, 300)).toBeNull();
      expect(replay.completed).toBe(5);
    } finally {
      expect((await simfleet(['session', 'end', session.id])).code).toBe(0);
    }
  }, 180_000);

  it("sets a permission for the page's origin, as the page itself then sees it, and refuses one the web has not", async () => {
    const session = JSON.parse((await simfleet(['session', 'new', '--json'])).stdout);
    const env = { SIMFLEET_SESSION: session.id };
    const page = () => (provider.device('web-1') as WebDevice).currentPageForTests;
    const seen = () => page().evaluate(async () => (await navigator.permissions.query({ name: 'geolocation' })).state);
    try {
      expect(await seen()).toBe('prompt');
      const granted = await json(['permission', 'grant', 'location'], env);
      expect(granted).toEqual({
        action: 'grant',
        permission: 'location',
        platform: 'web',
        app: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        applied: ['geolocation'],
      });
      expect(await seen()).toBe('granted');
      const revoked = await simfleet(['permission', 'revoke', 'location'], env);
      expect(revoked.stdout).toMatch(/^revoke location for http:\/\/127\.0\.0\.1:\d+: geolocation$/m);
      expect(await seen()).toBe('denied');
      const refused = await simfleet(['permission', 'grant', 'contacts'], env);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/PERMISSION_UNSUPPORTED: contacts cannot be set on this web device/);
      const res = await fetch(`${farm.gateway.url}/v1/sessions/${session.id}/permissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'grant', permission: 'contacts' }),
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { details: unknown } }).error.details).toEqual({
        permission: 'contacts',
        platform: 'web',
        supported: ['location', 'camera', 'microphone', 'notifications', 'all'],
      });
      expect(await seen()).toBe('denied'); // the refusal changed nothing
      const unknown = await simfleet(['permission', 'grant', 'telepathy'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/VALIDATION_FAILED/);
    } finally {
      expect((await simfleet(['session', 'end', session.id])).code).toBe(0);
    }
  }, 120_000);

  it('tells a refusal (3) from a failure (1) and bad usage (2)', async () => {
    const session = JSON.parse((await simfleet(['session', 'new', '--json'])).stdout);
    const env = { SIMFLEET_SESSION: session.id };
    try {
      const amb = await simfleet(['tap', 'Se'], env);
      expect(amb.code).toBe(3);
      expect(amb.stderr).toMatch(/AMBIGUOUS: "Se" is close to 2 elements/);
      const none = await simfleet(['tap', 'No such button', '--json'], env);
      expect(none.code).toBe(3);
      expect(JSON.parse(none.stdout).error.code).toBe('NO_MATCH');
      const stopped = await simfleet(['do', '-'], env, JSON.stringify([{ action: 'wait', for: 'visible', target: 'Never there', timeoutMs: 300 }]));
      expect(stopped.code).toBe(1);
      expect(stopped.stdout).toMatch(/stopped at step 0: timeout/);
      expect((await simfleet(['tap'], env)).code).toBe(2);
      expect((await simfleet(['ui'])).code).toBe(2); // no session named
      const stranger = await simfleet(['ui'], { ...env, SIMFLEET_TOKEN: 'sf_notatokenatallxxxxxxxxxx' });
      expect(stranger.code).toBe(1);
      expect(stranger.stderr).toMatch(/INVALID_TOKEN|UNAUTHORIZED/);
    } finally {
      await simfleet(['session', 'end', session.id]);
    }
  }, 120_000);
});
