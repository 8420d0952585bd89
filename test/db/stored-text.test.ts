// Text read off a device's screen on its way into Postgres, on the real server: Postgres refuses NUL
// and half of a surrogate pair, in text and in JSON. A memory write holding them is refused at the
// gateway naming the field (test/unit/worker-link.test.ts); a recorded step keeps its evidence with
// them made storable, since the action it records has already run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schemas } from '../../openapi/contract.js';
import { sqlState, type Database } from '../../server/db/database.js';
import { appendRecordedSteps, recordedSteps, startRecording } from '../../server/db/repositories/flows.js';
import { applyMemoryWrite } from '../../server/db/repositories/memory.js';
import { insertSession } from '../../server/db/repositories/sessions.js';
import { ensureTeam } from '../../server/db/repositories/teams.js';
import { insertToken } from '../../server/db/repositories/tokens.js';
import { firstUnstorable } from '../../server/db/unstorable.js';
import type { TestDatabase } from '../helpers/db.js';
import { migratedDatabase } from '../helpers/migrated-db.js';

let tdb: TestDatabase;
let db: Database;

beforeAll(async () => {
  ({ tdb, db } = await migratedDatabase('stored-text'));
});
afterAll(async () => {
  await db?.close();
  await tdb?.drop();
});

const HALF = '📬'.charAt(0);
const write = (name: string, label: string): Schemas['WorkerMemoryWrite'] => ({
  type: 'memory-write',
  id: `w-${Math.random()}`,
  key: { team: 'qa', platform: 'web', app: 'sample@any' },
  generation: 0,
  screens: [
    {
      id: 'n1',
      name,
      fingerprints: [{ hash: '1a2b3c4d', title: name, tokens: [] }],
      readings: 1,
      vocabulary: [{ role: 'button', label, tap: { x: 1, y: 2 } }],
    },
  ],
  edges: [],
  escalations: [],
});

describe('text the database cannot store', () => {
  it('is refused by Postgres with a data-exception state (class 22), which the gateway answers as final', async () => {
    const states: (string | undefined)[] = [];
    for (const w of [write('Set\u0000tings', 'ok'), write('Settings', `b\u0000x`), write(`Inbox ${HALF}`, 'ok'), write('Inbox', `Archive ${HALF}`)]) {
      expect(firstUnstorable(w)).toBeDefined(); // the gateway's own check finds each before Postgres does
      states.push(
        await applyMemoryWrite(db, 'h1', w).then(
          () => 'stored',
          (err: unknown) => sqlState(err),
        ),
      );
    }
    expect(states.every((s) => s !== undefined && /^22/.test(s))).toBe(true);
    expect(await applyMemoryWrite(db, 'h1', write('Inbox 📬', 'Archive 📬'))).toBe('applied'); // whole pairs are fine
  });

  it('is kept in a recorded step, made storable, instead of failing an action that already ran', async () => {
    await ensureTeam(db, 'qa');
    await insertToken(db, { id: 'tok-1', name: 't', role: 'agent', team: 'qa', secretHash: 'h-1', createdBy: null });
    await insertSession(db, {
      id: 'ses-1',
      team: 'qa',
      tokenId: 'tok-1',
      platform: 'web',
      requirements: {} as Schemas['DeviceRequirements'],
      app: null,
      priority: 'interactive',
      ttlSeconds: 60,
      idleTimeoutSeconds: 60,
      waitSeconds: 0,
      idempotencyKey: null,
      requestHash: 'x',
    });
    expect(await startRecording(db, { sessionId: 'ses-1', team: 'qa', name: 'inbox', platform: 'web', createdBy: 't' })).toBe(true);
    const step = {
      action: 'tap',
      target: `Arch\u0000ive ${HALF}`,
      role: 'button',
      expect: { from: 'a', to: 'b', fromName: `In\u0000box`, toName: 'Archive' },
    } as Schemas['Step'];
    await appendRecordedSteps(db, 'ses-1', [{ app: null, model: 'iPhone 15', step, verified: true }]);
    const [kept] = await recordedSteps(db, 'ses-1');
    expect(kept!.step).toMatchObject({ target: 'Archive \uFFFD', expect: { fromName: 'Inbox', toName: 'Archive' } });
  });
});
