// The conformance corpus: flow files other people wrote for Maestro, kept outside this repository
// (they are other projects' code; MAESTRO_CORPUS names the folder, with its env.json and README of
// provenance), and the suite is skipped where it is not there. Each file is
// read as `simfleet maestro check` reads them with their -e variables. Every file either checks clean
// or is refused with a reason on a line; Maestro's own test resources read into the commands its
// IntegrationTest.kt expects them to run; the table of clean and refused files is printed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type MaestroPlan, type MaestroProblem, parseMaestro } from '../../server/domain/flows/maestro/index.js';

const ROOT = relative(process.cwd(), process.env.MAESTRO_CORPUS ?? fileURLToPath(new URL('../../../maestro-corpus/', import.meta.url)));
const PRESENT = existsSync(join(ROOT, 'env.json'));
const ENV = PRESENT ? (JSON.parse(readFileSync(join(ROOT, 'env.json'), 'utf8')) as Record<string, Record<string, string>>) : {};

function flowFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return flowFiles(path);
    return /\.ya?ml$/.test(name) && !/^config\.ya?ml$/.test(name) ? [path] : [];
  });
}

const read = (p: string) => readFileSync(p, 'utf8');
const check = (file: string): MaestroPlan => parseMaestro(file, read, { env: ENV[relative(ROOT, file)] ?? {} });
const resource = (name: string) => check(join(ROOT, 'maestro/test-resources', name));
const bare = (plan: MaestroPlan) => plan.steps.map(({ source: _, ...s }) => s);

/** Why a problem refuses its flow, in the order a file is counted under (its first reason). */
const REASONS: [string, (p: MaestroProblem) => boolean][] = [
  ['JavaScript (runScript, evalScript, assertTrue, ${expression})', (p) => p.message.includes('JavaScript')],
  ['AI commands', (p) => /WithAI$/.test(p.command)],
  ['clipboard (copyTextFrom, pasteText)', (p) => ['copyTextFrom', 'pasteText', 'setClipboard'].includes(p.command)],
  [
    'app state (clearState, killApp, stopApp, launchApp permissions/clearKeychain/arguments)',
    (p) => ['clearState', 'clearKeychain', 'killApp', 'stopApp', 'setPermissions', 'launchApp'].includes(p.command),
  ],
  [
    'device (location, network, media, recording, keyboard, keys)',
    (p) =>
      [
        'setLocation',
        'travel',
        'setAirplaneMode',
        'toggleAirplaneMode',
        'startRecording',
        'stopRecording',
        'addMedia',
        'setOrientation',
        'hideKeyboard',
        'pressKey',
      ].includes(p.command),
  ],
  ['size, traits and containsDescendants selectors', (p) => ['width', 'height', 'tolerance', 'traits', 'css', 'containsDescendants'].includes(p.option ?? '')],
  ['other', () => true],
];

function conformance() {
  const all = flowFiles(ROOT);
  const plans = all.map((file) => ({ file, plan: check(file) }));
  // a sub-flow that needs variables its callers give it is checked through them, not on its own
  const included = new Set(plans.flatMap(({ plan }) => plan.included));
  const needsCaller = (file: string, plan: MaestroPlan) =>
    included.has(file) && plan.problems.length > 0 && plan.problems.every((p) => p.message.startsWith('undefined variable'));
  const entries = plans.filter(({ file, plan }) => !needsCaller(file, plan));
  const byReason = new Map<string, string[]>();
  for (const { file, plan } of entries) {
    if (!plan.problems.length) continue;
    const reason = REASONS.find(([, has]) => plan.problems.some(has))![0];
    byReason.set(reason, [...(byReason.get(reason) ?? []), relative(ROOT, file)]);
  }
  const clean = entries.filter(({ plan }) => !plan.problems.length).length;
  return { files: entries.length, clean, byReason, entries, throughCallers: plans.length - entries.length };
}

function table(c: ReturnType<typeof conformance>): string {
  const rows = [...c.byReason].sort((a, b) => b[1].length - a[1].length).map(([why, files]) => `| refused: ${why} | ${files.length} |`);
  return [
    `| flow files (besides ${c.throughCallers} sub-flows checked through their callers) | ${c.files} |`,
    '|---|---|',
    `| clean | ${c.clean} (${Math.round((100 * c.clean) / c.files)}%) |`,
    ...rows,
  ].join('\n');
}

describe.skipIf(!PRESENT)('the Maestro conformance corpus (MAESTRO_CORPUS)', () => {
  it('checks every flow file clean or refuses it with a reason on a line', () => {
    const c = conformance();
    console.info(`Maestro conformance corpus:\n${table(c)}\nother: ${(c.byReason.get('other') ?? []).join(', ')}`);
    expect(c.files).toBeGreaterThan(150);
    for (const { file, plan } of c.entries)
      for (const p of plan.problems) {
        expect(p.line, `${file}: ${p.message}`).toBeGreaterThan(0);
        expect(p.message.length, file).toBeGreaterThan(10);
      }
    // what this corpus checks today (the target is 95%; JavaScript is most of the rest)
    expect(c.clean / c.files).toBeGreaterThanOrEqual(0.55);
    expect(c.byReason.get('other') ?? []).toEqual([]);
  });

  it("reads Maestro's own test flows into the commands its IntegrationTest expects", () => {
    const relativePlan = resource('015_element_relative_position.yaml');
    expect(relativePlan.problems).toEqual([]);
    expect(bare(relativePlan)[0]).toEqual({ action: 'tap', select: { above: { text: 'Middle' }, rightOf: { text: 'Top Left' } } });
    expect(bare(relativePlan)).toHaveLength(8);

    expect(bare(resource('040_escape_regex.yaml'))).toEqual([{ action: 'tap', target: '+123456' }]);
    expect(bare(resource('055_compare_regex.yaml'))).toEqual([{ action: 'tap', select: { text: '(Secondary button)' } }]);

    const conditional = resource('049_run_flow_conditionally.yaml');
    expect(conditional.problems).toEqual([]);
    expect(conditional.blocks.map((b) => [b.first, b.last, b.when])).toEqual([
      [0, 0, { visible: { text: 'Not Clicked' } }],
      [2, 2, { visible: { text: 'Not Clicked' } }],
    ]);
    expect(bare(conditional)).toEqual([
      { action: 'tap', select: { text: '.*button.*' } },
      { action: 'assert', that: 'visible', target: 'Clicked', timeoutMs: 7000 },
      { action: 'tap', select: { text: '.*button.*' } },
    ]);

    const whileLoop = resource('075_repeat_while.yaml');
    expect(whileLoop.blocks).toEqual([expect.objectContaining({ first: 0, last: 0, repeat: { while: { notVisible: { text: 'Value 3' } } } })]);
    expect(resource('096_platform_condition.yaml').blocks.map((b) => b.when?.platform)).toEqual(['ios', 'ios', 'android']);
    expect(resource('119_retry_commands.yaml').blocks).toEqual([expect.objectContaining({ first: 0, last: 2, retries: 3 })]);
    expect(bare(resource('100_tapOn_multiple_times.yaml')).map((s) => s.optional ?? false)).toEqual([true, true, false]);
    expect(bare(resource('114_child_of_selector.yaml'))[1]).toEqual({
      action: 'assert',
      that: 'not-visible',
      select: { text: 'child_id', childOf: { text: 'parent_id_3' } },
      timeoutMs: 7000,
    });
    const hooks = resource('103_on_flow_start_complete_hooks.yaml');
    expect(hooks.problems.map((p) => [p.line, p.command])).toEqual([
      [3, 'runScript'],
      [6, 'runScript'],
    ]);
  });
});

describe('the Maestro check', () => {
  // A guard against runaway parsing (a pattern gone quadratic), not a speed figure: this machine's
  // timings swing tenfold under load; the median here is a few milliseconds on a quiet machine.
  it('checks a 50-step flow without runaway parsing (median under 500 ms)', () => {
    const lines = Array.from({ length: 50 }, (_, i) => (i % 2 ? `- tapOn: "Item ${i}.*"` : `- assertVisible: { text: "Row ${i}", below: "Header" }`));
    const text = ['appId: app', '---', ...lines].join('\n');
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const plan = parseMaestro('flow.yaml', () => text);
      times.push(performance.now() - t0);
      expect(plan.steps).toHaveLength(50);
    }
    times.sort((a, b) => a - b);
    expect(times[7]).toBeLessThan(500);
  });
});
