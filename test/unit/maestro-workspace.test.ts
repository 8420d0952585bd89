// A Maestro workspace (a directory) chosen as Maestro's WorkspaceExecutionPlanner chooses it:
// config.yaml's flows globs, include/exclude tags, executionOrder.
import { describe, expect, it } from 'vitest';
import { runMaestro } from '../../server/cli/maestro.js';
import { globRegex, planWorkspace } from '../../server/domain/flows/maestro/workspace.js';

const flow = (name: string | null, tags: string[] = []) =>
  [...(name ? [`name: ${name}`] : []), 'appId: app', ...(tags.length ? [`tags: [${tags.join(', ')}]`] : []), '---', '- back'].join('\n');

function io(files: Record<string, string>) {
  return {
    list: (dir: string) => Object.keys(files).filter((f) => f.startsWith(`${dir}/`)),
    read: (p: string) => {
      if (!Object.hasOwn(files, p)) throw new Error('no such file');
      return files[p]!;
    },
  };
}

describe('Maestro workspaces', () => {
  it("takes the top-level flows by default, never config.yaml or a sub-directory's", () => {
    const plan = planWorkspace(
      'ws',
      io({ 'ws/a.yaml': flow(null), 'ws/b.yml': flow(null), 'ws/config.yaml': 'flows: ["*"]', 'ws/sub/c.yaml': flow(null), 'ws/notes.md': '' }),
    );
    expect(plan).toEqual({ flows: ['ws/a.yaml', 'ws/b.yml'], sequence: 0, continueOnFailure: true, problems: [] });
  });

  it('follows flows globs (** across directories) and the tags asked for, the caller’s added to the config’s', () => {
    const files = {
      'ws/config.yaml': 'flows:\n  - "auth/*"\n  - "shop/**"\nexcludeTags: [wip]',
      'ws/auth/login.yaml': flow(null, ['smoke']),
      'ws/auth/signup.yaml': flow(null, ['smoke', 'wip']),
      'ws/shop/cart/add.yaml': flow(null, ['smoke']),
      'ws/shop/pay.yaml': flow(null),
      'ws/top.yaml': flow(null, ['smoke']),
    };
    expect(planWorkspace('ws', io(files)).flows).toEqual(['ws/auth/login.yaml', 'ws/shop/cart/add.yaml', 'ws/shop/pay.yaml']);
    expect(planWorkspace('ws', io(files), { include: ['smoke'] }).flows).toEqual(['ws/auth/login.yaml', 'ws/shop/cart/add.yaml']);
  });

  it('runs executionOrder first, in order, by header name or file name, and says whether to go on after a failure', () => {
    const files = {
      'ws/config.yaml': 'executionOrder:\n  continueOnFailure: false\n  flowsOrder:\n    - Sign up\n    - login\n    - missing',
      'ws/a.yaml': flow('Sign up'),
      'ws/login.yaml': flow(null),
      'ws/z.yaml': flow(null),
    };
    const plan = planWorkspace('ws', io(files));
    expect(plan.flows).toEqual(['ws/a.yaml', 'ws/login.yaml', 'ws/z.yaml']);
    expect(plan).toMatchObject({ sequence: 2, continueOnFailure: false });
    expect(plan.problems).toEqual([
      expect.objectContaining({ file: 'ws/config.yaml', command: 'executionOrder', message: 'flowsOrder names "missing", which is no flow chosen to run' }),
    ]);
  });

  it('says why nothing was chosen', () => {
    expect(planWorkspace('ws', io({ 'ws/sub/a.yaml': flow(null) })).problems[0]!.message).toContain(
      'top level holds no flows; list the sub-directories under flows:',
    );
    expect(planWorkspace('ws', io({ 'ws/a.yaml': flow(null, ['x']) }), { include: ['y'] }).problems[0]!.message).toBe(
      'no flow has the tags asked for (include: y; exclude: -)',
    );
    const broken = planWorkspace('ws', io({ 'ws/config.yaml': 'flows: [', 'ws/a.yaml': flow(null) }));
    expect(broken.flows).toEqual(['ws/a.yaml']);
    expect(broken.problems[0]).toMatchObject({ file: 'ws/config.yaml', message: expect.stringContaining('the workspace config cannot be read') });
  });

  it('reads globs as Java does: * within a directory, ** across, {a,b}', () => {
    expect(globRegex('ws/*.yaml').test('ws/a.yaml')).toBe(true);
    expect(globRegex('ws/*.yaml').test('ws/x/a.yaml')).toBe(false);
    expect(globRegex('ws/**').test('ws/x/y/a.yaml')).toBe(true);
    expect(globRegex('ws/{auth,shop}/*').test('ws/shop/a.yaml')).toBe(true);
  });

  it('lets maestro check take a directory, with tags', async () => {
    let out = '';
    const code = await runMaestro(
      ['check', 'test/fixtures/maestro/workspace'],
      { json: true, env: {}, tags: { include: ['android'], exclude: ['advanced'] } },
      {
        out: (t) => void (out += t),
        err: () => undefined,
      },
    );
    expect(code).toBe(0);
    expect((JSON.parse(out) as { file: string }[]).map((p) => p.file)).toEqual(['test/fixtures/maestro/workspace/android-flow.yaml']);
  });
});
