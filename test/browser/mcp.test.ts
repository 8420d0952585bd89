// `simfleet mcp` against a real gateway, a worker and Chromium, driven by the MCP SDK's own client
// over stdio exactly as an agent host would: the built CLI is spawned, tools are listed and called,
// and refusals arrive as tool results a model can read (isError, a code), not protocol errors.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { webFarm } from '../helpers/web-device.js';

const CLI = new URL('../../dist/server/cli/main.js', import.meta.url).pathname;
const TOOLS = ['act', 'changes', 'do', 'flow_replay', 'look', 'permission', 'screen', 'session_end', 'session_start', 'wait'];
let farm: Farm;
let provider: WebProvider;
let agent: Awaited<ReturnType<Farm['token']>>;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  agent = await farm.token('agent', 'mcp');
}, 120_000); // a farm, a worker and Chromium starting beside another browser suite on 2 cores once took over 60 s in CI
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'simfleet-test', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: { SIMFLEET_URL: farm.gateway.url, SIMFLEET_TOKEN: agent.token! },
      stderr: 'inherit',
    }),
  );
  return client;
}

async function use(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { text: string }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  return { ...result, text };
}

/** A tool that should have worked, with its text shown when it did not. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await use(client, name, args);
  expect(result.isError ?? false, `${name} ${JSON.stringify(args)}: ${result.text.slice(0, 400)}`).toBe(false);
  return result;
}

describe('simfleet mcp', () => {
  it('lists exactly the ten tools, each described with an example argument object', async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      for (const t of tools) expect(t.description, t.name).toMatch(/Example: \{.*\}/);
      // One vocabulary: act takes `action`, as REST's /actions and do's steps do.
      expect(tools.find((t) => t.name === 'act')!.inputSchema.required).toEqual(['action']);
    } finally {
      await client.close();
    }
  });

  it('starts a session, reads and acts on the sample app, refuses with codes, looks and ends it', async () => {
    const client = await connect();
    let sessionId: string | undefined;
    try {
      const started = await ok(client, 'session_start', { platform: 'web' });
      sessionId = (started.structuredContent as { sessionId: string }).sessionId;
      expect(started.structuredContent).toMatchObject({ state: 'ready', device: { platform: 'web' } });
      expect((await farm.admin.call('getSession', { params: { sessionId } })).body).toMatchObject({ state: 'ready', team: 'mcp' });

      await ok(client, 'wait', { for: 'settled', timeoutMs: 5000 });
      const screen = await ok(client, 'screen');
      expect(screen.text).toMatch(/screen [0-9a-f]+ "Inbox"/);
      expect(screen.text).toMatch(/^@\d+ tab \d+,\d+ "Settings"/m);

      const tapped = await ok(client, 'act', { action: 'tap', target: 'Settings', role: 'tab' });
      expect(tapped.structuredContent).toMatchObject({ screen: { name: 'Settings' } });
      expect(tapped.text).toMatch(/^(ok|unverified): /);
      expect(tapped.text).toMatch(/screen [0-9a-f]+ "Settings"/);

      const none = await use(client, 'act', { action: 'tap', target: 'No such button' });
      expect(none.isError).toBe(true);
      expect(none.structuredContent).toMatchObject({ code: 'NO_MATCH', hint: expect.any(String) });
      expect(none.text).toMatch(/^NO_MATCH: .* — hint: /);
      const two = await use(client, 'act', { action: 'tap', target: 'Se' });
      expect(two.structuredContent).toMatchObject({ code: 'AMBIGUOUS' });
      const misspelt = await use(client, 'act', { action: 'tap', tagret: 'Settings' });
      expect(misspelt.isError).toBe(true);
      expect(misspelt.text).toMatch(/tagret/);
      const oldWord = await use(client, 'act', { kind: 'tap', target: 'Settings' });
      expect(oldWord.isError).toBe(true);
      expect(oldWord.text).toMatch(/kind/);

      const stopped = await use(client, 'do', { steps: [{ action: 'wait', for: 'visible', target: 'Never there', timeoutMs: 300 }] });
      expect(stopped.isError).toBe(true);
      expect(stopped.structuredContent).toMatchObject({ code: 'timeout', details: { index: 0, resume: { allowed: expect.any(Boolean) } } });
      expect(stopped.text).toMatch(/screen [0-9a-f]+ "Settings"/);

      // One step recorded through the REST API and saved, so that flow_replay has a flow to play.
      expect((await agent.call('startRecording', { params: { sessionId }, body: { name: 'mcp-inbox' } })).status).toBe(201);
      const mark = await ok(client, 'changes');
      const since = (mark.structuredContent as { mark: string }).mark;
      expect(since).toMatch(/^mk_/);
      await ok(client, 'act', { action: 'tap', target: 'Inbox', role: 'tab' });
      const changed = await ok(client, 'changes', { since });
      expect(changed.structuredContent).toMatchObject({ mark: since, changed: 'yes' });
      expect((await agent.call('saveRecording', { params: { sessionId } })).status).toBe(201);

      await ok(client, 'act', { action: 'tap', target: 'Settings', role: 'tab' });
      const replayed = await ok(client, 'flow_replay', { flow: 'mcp-inbox' });
      expect(replayed.structuredContent).toMatchObject({ completed: 1, screen: { name: 'Inbox' } });
      expect((await use(client, 'flow_replay', { flow: 'no-such-flow' })).structuredContent).toMatchObject({ code: 'NOT_FOUND' });

      const looked = await ok(client, 'look');
      const image = looked.content.find((c) => c.type === 'image');
      expect(image).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
      const bytes = Buffer.from((image as { data: string }).data, 'base64');
      expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
      expect(looked.text).toMatch(/^393×852 px at 1 px\/pt .*crop 0,0,393,852 .*ms old$/);
      expect((await use(client, 'look', { scale: 4 })).structuredContent).toMatchObject({ code: 'LOOK_UNAVAILABLE' });

      const allowed = await ok(client, 'permission', { action: 'grant', permission: 'camera' });
      expect(allowed.text).toMatch(/^grant camera for http:\/\/127\.0\.0\.1:\d+: camera$/);
      expect((await use(client, 'permission', { action: 'grant', permission: 'photos' })).structuredContent).toMatchObject({
        code: 'PERMISSION_UNSUPPORTED',
        details: { supported: expect.arrayContaining(['camera']) },
      });

      const ended = await ok(client, 'session_end');
      expect(ended.text).toMatch(new RegExp(`^session ${sessionId} ended`));
      expect((await farm.admin.call('getSession', { params: { sessionId } })).body).toMatchObject({ state: 'ended', endReason: 'released' });
      expect((await use(client, 'screen')).structuredContent).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'session' } });
      expect((await use(client, 'screen', { session: sessionId })).structuredContent).toMatchObject({ code: 'SESSION_ENDED' });
      sessionId = undefined;
    } finally {
      if (sessionId) await farm.admin.call('releaseSession', { params: { sessionId } });
      await client.close();
    }
  }, 180_000);
});
