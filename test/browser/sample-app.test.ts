// The sample app has no dead ends (issue 40): a message opened from a search result opens on the
// Search tab, and Back returns to the results; the Inbox tab is untouched. Driven through the API
// as a newcomer would, on a real web device (Chromium).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebProvider } from '../../workers/devices/web/provider.js';
import type { Farm } from '../helpers/farm.js';
import { settledSession } from '../helpers/sessions.js';
import { webFarm } from '../helpers/web-device.js';

let farm: Farm;
let provider: WebProvider;
let agent: Awaited<ReturnType<Farm['token']>>;

beforeAll(async () => {
  ({ farm, provider } = await webFarm());
  agent = await farm.token('agent', 'sample');
}, 120_000);
afterAll(async () => {
  await farm?.stop();
  await provider?.close();
});

describe('the sample app', () => {
  it('opens a search result on the Search tab, and Back goes back to the results', async () => {
    const id = await settledSession(agent);
    const act = async (body: Record<string, unknown>) => {
      const res = await agent.call('runAction', { params: { sessionId: id }, body });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
      return res.body as { screen: { name: string | null }; outline: string };
    };
    await act({ action: 'tap', target: 'Search', role: 'tab' });
    await act({ action: 'type', target: 'Search messages', text: 'Ada' });
    const opened = await act({ action: 'tap', target: '#1' });
    expect(opened.screen.name).toBe('Message');
    expect(opened.outline).toMatch(/button \d+,\d+ "‹ Search"|"Back to Search"/);
    const back = await act({ action: 'tap', target: 'Back to Search' });
    expect(back.screen.name).toBe('Search');
    expect(back.outline).toMatch(/textfield .*"Search messages"/);
    const inbox = await act({ action: 'tap', target: 'Inbox', role: 'tab' });
    expect(inbox.screen.name).toBe('Inbox');
  }, 90_000);
});
