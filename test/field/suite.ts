// The whole field suite in one call: every page of the apps asked for (run.ts), then every task of
// theirs in two passes (tasks.ts; the second meets what the first taught simfleet's memory). Used by
// `npm run field` (main.ts), the acceptance test and the slice in `npm test`.
import { checkPage, type FieldRig, fieldRig, type PageResult } from './run.js';
import { runTask, type TaskOutcome } from './tasks.js';
import { FIELD_TASKS } from './tasks/index.js';

export interface SuiteOptions {
  /** App ids; every manifest app when left out. */
  only?: string[];
  pages?: boolean;
  tasks?: boolean;
  passes?: 1 | 2;
  onPage?: (r: PageResult) => void;
  onTask?: (o: TaskOutcome) => void;
}

export async function runFieldSuite(opts: SuiteOptions = {}): Promise<{ pages: PageResult[]; tasks: TaskOutcome[] }> {
  const tasks = FIELD_TASKS.filter((t) => !opts.only || opts.only.includes(t.app));
  const rig = await fieldRig(opts.only);
  const pages: PageResult[] = [];
  const outcomes: TaskOutcome[] = [];
  try {
    if (opts.pages !== false)
      for (const p of rig.server.pages) {
        await renew(rig);
        const r = await checkPage(rig, p);
        pages.push(r);
        opts.onPage?.(r);
      }
    if (opts.tasks !== false)
      for (let pass = 1 as 1 | 2; pass <= (opts.passes ?? 2); pass++)
        for (const t of tasks) {
          await renew(rig);
          const o = await runTask(rig, t, pass).catch(
            (err: Error): TaskOutcome => ({ app: t.app, name: t.name, pass, steps: [], success: false, why: `the harness failed: ${err.message}` }),
          );
          outcomes.push(o);
          opts.onTask?.(o);
        }
  } finally {
    await rig.close();
  }
  return { pages, tasks: outcomes };
}

/** The whole suite outlasts a lease (15 minutes by default): the harness renews it as it goes, as a long-running agent does. */
async function renew(rig: FieldRig): Promise<void> {
  const res = await rig.agent.call('renewSession', { params: { sessionId: rig.session }, body: {} });
  if (res.status !== 200) throw new Error(`renew the field session: ${res.status} ${res.text.slice(0, 200)}`);
}
