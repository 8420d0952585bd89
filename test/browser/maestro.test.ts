// Maestro flows through the `simfleet` command, as a CI job would run them: `maestro check` parses
// without a device, `maestro run` plays the flows written against the sample app on a leased web
// device (real Chromium, real gateway and Postgres), a failing flow leaves a JUnit report with the
// failed step's image and outline beside it, and a flow with an unsupported command runs nothing.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { webFarm } from '../helpers/web-device.js';

const CLI = new URL('../../dist/server/cli/main.js', import.meta.url).pathname;
const FIXTURES = new URL('../fixtures/maestro/', import.meta.url).pathname;

let farm: Farm;
let provider: WebProvider;
let agent: Awaited<ReturnType<Farm['token']>>;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  agent = await farm.token('agent', 'ci');
}, 120_000); // a farm, a worker and Chromium starting beside another browser suite on 2 cores once took over 60 s in CI
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

function simfleet(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { timeout: 120_000, env: { ...process.env, SIMFLEET_GATEWAY_URL: farm.gateway.url, SIMFLEET_TOKEN: agent.token! } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const release = async (id: string) => {
  await agent.call('releaseSession', { params: { sessionId: id } });
  await waitFor('device free', async () => ((await farm.admin.call('listDevices')).body.devices[0]?.state === 'available' ? true : undefined), 20_000);
};

describe('Maestro flows on the sample app', () => {
  it('runs the flows written against the sample app green, with a JUnit report', async () => {
    const id = await settledSession(agent);
    try {
      const dir = await mkdtemp(join(tmpdir(), 'simfleet-maestro-'));
      const report = join(dir, 'report.xml');
      const res = await simfleet([
        'maestro',
        'run',
        join(FIXTURES, 'settings-tour.yaml'),
        join(FIXTURES, 'sign-up.yaml'),
        '--session',
        id,
        '--junit',
        report,
        '-e',
        'USER_NAME=Grace',
      ]);
      expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
      expect(res.stdout).toMatch(/Settings tour .*\n[\s\S]*passed: \d+ steps/);
      const xml = await readFile(report, 'utf8');
      expect(xml).toMatch(/<testsuites name="simfleet" tests="\d+" failures="0"/);
      expect(xml).not.toContain('<failure');
      expect(xml).toContain('settings-tour.yaml:');
    } finally {
      await release(id);
    }
  }, 180_000);

  it('runs control flow on the web device: regex and relative selectors, conditions, a retry that needs its second attempt, a repeat while, the hooks', async () => {
    const id = await settledSession(agent);
    try {
      const dir = await mkdtemp(join(tmpdir(), 'simfleet-maestro-'));
      const report = join(dir, 'report.xml');
      const res = await simfleet(['maestro', 'test', join(FIXTURES, 'control-flow.yaml'), '--session', id, '--junit', report]);
      expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
      const lines = res.stdout.split('\n');
      const at = (index: number) => lines.filter((l) => new RegExp(`^\\s+${index} `).test(l));
      // the when blocks: one ran, one found nothing to match, one is for Android
      expect(at(2)[0]).toMatch(/ done /);
      expect(at(3)[0]).toMatch(/skipped .*when visible \(text ~ "No such \(thing\|page\)"\) did not hold/);
      expect(at(4)[0]).toMatch(/skipped .*when platform android did not hold/);
      // the retry: the assert failed once, then the block ran again and passed
      expect(at(6)).toHaveLength(2);
      expect(at(6)[0]).toMatch(/failed .*retry 1 of 2: the block from step 5 runs again/);
      expect(at(6)[1]).toMatch(/ done /);
      // repeat while: one back, after which the page's line is gone
      expect(at(9)).toHaveLength(1);
      expect(at(11)[0]).toMatch(/ done .*control-flow-end/);
      expect(await readFile(report, 'utf8')).toMatch(/<testsuite name="Control flow"[^>]* failures="0"/);
      // the same flow sent over REST carries its blocks too
      const rest = await agent.call('runMaestro', {
        params: { sessionId: id },
        body: { flow: await readFile(join(FIXTURES, 'control-flow.yaml'), 'utf8'), path: 'control-flow.yaml' },
      });
      expect(rest.status, rest.text.slice(0, 300)).toBe(200);
      expect(rest.body.divergence).toBeNull();
      const statuses = rest.body.steps.map((r: { index: number; status: string }) => `${r.index}:${r.status}`);
      expect(statuses.slice(0, 5)).toEqual(['0:done', '1:done', '2:done', '3:skipped', '4:skipped']);
      expect(statuses.filter((x: string) => x.startsWith('6:'))).toEqual(['6:failed', '6:done']);
    } finally {
      await release(id);
    }
  }, 180_000);

  it('stops a flow whose element is gone with a failing JUnit case, the image and the outline saved beside it', async () => {
    const id = await settledSession(agent);
    try {
      const dir = await mkdtemp(join(tmpdir(), 'simfleet-maestro-'));
      const flow = join(dir, 'stale.yaml');
      await writeFile(flow, 'appId: simfleet-sample-app\nname: stale\n---\n- tapOn: "Settings"\n- tapOn: "Display & Brightness"\n- tapOn: "Privacy"\n');
      const report = join(dir, 'out', 'report.xml');
      const res = await simfleet(['maestro', 'run', flow, '--session', id, '--junit', report]);
      expect(res.code, res.stdout + res.stderr).toBe(1);
      expect(res.stdout).toContain('stopped at step 1: selector-miss');
      expect(res.stdout).toMatch(/resume: --from 1 --plan-digest [a-f0-9]{32}/);
      const xml = await readFile(report, 'utf8');
      expect(xml).toMatch(/<testsuite name="stale" tests="3" failures="1" skipped="1"/);
      expect(xml).toMatch(/<failure type="selector-miss" message="[^"]*stale\.yaml:5[^"]*Display &amp; Brightness/);
      const files = (await readdir(join(dir, 'out'))).sort();
      expect(files).toEqual(['report.xml', 'stale-step1.outline.txt', 'stale-step1.png']);
      const png = await readFile(join(dir, 'out', 'stale-step1.png'));
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(393); // point-scaled: as wide as the screen in points
      expect(await readFile(join(dir, 'out', 'stale-step1.outline.txt'), 'utf8')).toContain('"Settings"');
      expect(xml).toContain('[[ATTACHMENT|stale-step1.png]]');
    } finally {
      await release(id);
    }
  }, 120_000);

  it('refuses a flow with an unsupported command before anything runs, naming the command and its line', async () => {
    const id = await settledSession(agent);
    try {
      const before = (await agent.call('getScreen', { params: { sessionId: id }, headers: { accept: 'application/json' } })).body.screen.id;
      const res = await simfleet(['maestro', 'run', join(FIXTURES, 'unsupported.yaml'), '--session', id]);
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/unsupported\.yaml:\d+: \w+/);
      expect(res.stdout).toContain('nothing was run');
      const after = (await agent.call('getScreen', { params: { sessionId: id }, headers: { accept: 'application/json' } })).body.screen.id;
      expect(after).toBe(before);
      const check = await simfleet(['maestro', 'check', join(FIXTURES, 'unsupported.yaml')]);
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/unsupported\.yaml:\d+: /);
    } finally {
      await release(id);
    }
  });

  it('runs a flow sent over REST with the files its runFlow names, and refuses one with problems before any step', async () => {
    const id = await settledSession(agent);
    try {
      const at = { params: { sessionId: id } };
      const read = (f: string) => readFile(join(FIXTURES, f), 'utf8');
      const files = {
        'subflows/open-settings.yaml': await read('subflows/open-settings.yaml'),
        'subflows/wizard-step-one.yaml': await read('subflows/wizard-step-one.yaml'),
      };
      const run = await agent.call('runMaestro', { ...at, body: { flow: await read('sign-up.yaml'), path: 'sign-up.yaml', files } });
      expect(run.status, run.text.slice(0, 300)).toBe(200);
      expect(run.body.divergence, JSON.stringify(run.body.divergence)?.slice(0, 300)).toBeNull();
      expect(run.body.steps.find((s: { source?: { file: string } }) => s.source?.file === 'subflows/wizard-step-one.yaml')).toBeTruthy();
      const before = run.body.screen.id;
      const bad = await agent.call('runMaestro', { ...at, body: { flow: await read('unsupported.yaml'), path: 'unsupported.yaml' } });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe('MAESTRO_UNSUPPORTED');
      const lines = bad.body.error.details.problems.map((p: { line: number; command: string }) => `${p.line} ${p.command}`);
      expect(lines).toContain('18 hideKeyboard');
      const missing = await agent.call('runMaestro', { ...at, body: { flow: await read('sign-up.yaml'), path: 'sign-up.yaml' } });
      expect(missing.status).toBe(422);
      expect(missing.body.error.details.problems[0].message).toMatch(/not sent: add it to files/);
      expect((await agent.call('getScreen', { ...at, headers: { accept: 'application/json' } })).body.screen.id).toBe(before);
    } finally {
      await release(id);
    }
  });
});
