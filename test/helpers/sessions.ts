// A web session that is ready and whose screen has settled (the sample app loads its inbox in
// 400 ms): where a test of acting or memory starts.
import type { api } from './api.js';
import { waitFor } from './wait.js';

export async function settledSession(agent: ReturnType<typeof api>, more: Record<string, unknown> = {}): Promise<string> {
  const created = (await agent.call('createSession', { body: { platform: 'web', waitSeconds: 60, ...more } })).body;
  const s = await waitFor(
    'session ready',
    async () => {
      const got = (await agent.call('getSession', { params: { sessionId: created.id } })).body;
      return got.state === 'ready' ? got : undefined;
    },
    30_000,
  );
  await agent.call('waitForScreen', { params: { sessionId: s.id }, body: { for: 'settled', timeoutMs: 5000, changeTimeoutMs: 300 } });
  return s.id as string;
}
