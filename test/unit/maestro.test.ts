import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTRACT_ID, createAjv } from '../../openapi/contract.js';
import { parseMaestro, type MaestroPlan } from '../../server/domain/flows/maestro/index.js';
import { runMaestro } from '../../server/cli/maestro.js';

const FIXTURES = relative(process.cwd(), fileURLToPath(new URL('../fixtures/maestro/', import.meta.url)));
const fixture = (name: string) => `${FIXTURES}/${name}`;
const fromDisk = (main: string, env?: Record<string, string>) => parseMaestro(main, (p) => readFileSync(p, 'utf8'), { env: env ?? {} });

/** A flow from in-memory files; `main` is flows/main.yaml unless given. */
function flow(files: Record<string, string>, env: Record<string, string> = {}, main = 'flows/main.yaml'): MaestroPlan {
  return parseMaestro(
    main,
    (p) => {
      if (!Object.hasOwn(files, p)) throw new Error('no such file');
      return files[p]!;
    },
    { env },
  );
}
/** A main flow from lines; with the two header lines, the first command is on line 3. */
const commands = (...lines: string[]) => flow({ 'flows/main.yaml': ['appId: simfleet-sample-app', '---', ...lines].join('\n') });
const src = (line: number, command: string, file = 'flows/main.yaml') => ({ file, line, command });
const where = (plan: MaestroPlan) => plan.problems.map((p) => [p.line, p.command, p.option ?? null]);

describe('Maestro flows → simfleet steps', () => {
  it('reads the sample-app tour into exact steps, each pointing at its line', () => {
    const file = fixture('settings-tour.yaml');
    const plan = fromDisk(file);
    expect(plan.problems).toEqual([]);
    expect(plan).toMatchObject({ file, appId: 'simfleet-sample-app', name: 'Settings tour' });
    expect(plan.steps).toHaveLength(21);
    expect(plan.steps.slice(0, 5)).toEqual([
      { action: 'launch', source: src(8, 'launchApp', file) },
      { action: 'tap', target: 'Settings', source: src(9, 'tapOn', file) },
      { action: 'assert', that: 'visible', target: 'Wi-Fi', timeoutMs: 7000, source: src(10, 'assertVisible', file) },
      { action: 'scroll', to: 'Notifications', direction: 'down', timeoutMs: 10000, source: src(11, 'scrollUntilVisible', file) },
      { action: 'assert', that: 'visible', target: 'Notifications', timeoutMs: 7000, source: src(15, 'assertVisible', file) },
    ]);
    expect(plan.steps[7]).toEqual({ action: 'back', source: src(18, 'back', file) });
    expect(plan.steps[8]).toEqual({ action: 'tap', target: '#tab-search', source: src(19, 'tapOn', file) });
    expect(plan.steps[10]).toEqual({ action: 'type', text: 'grace', source: src(23, 'inputText', file) });
    expect(plan.steps[11]).toEqual({ action: 'wait', for: 'settled', source: src(24, 'waitForAnimationToEnd', file) });
    expect(plan.steps[12]).toEqual({ action: 'screenshot', name: 'search-grace-results', source: src(25, 'takeScreenshot', file) });
    expect(plan.steps[13]).toEqual({ action: 'clear', source: src(26, 'eraseText', file) });
    expect(plan.steps[15]).toEqual({ action: 'tap', target: '#message-1', note: 'Open the first message', source: src(29, 'tapOn', file) });
    expect(plan.steps[20]).toEqual({
      action: 'assert',
      that: 'not-visible',
      target: 'New Message',
      timeoutMs: 7000,
      source: src(36, 'assertNotVisible', file),
    });
  });

  it('maps the tap family and its options', () => {
    const plan = commands(
      '- tapOn: { id: "save", index: 1, waitToSettleTimeoutMs: 2500 }',
      '- tapOn: { point: "50%, 90%" }',
      '- tapOn: { point: "100,200", optional: true }',
      '- doubleTapOn: "Photo"',
      '- longPressOn: { text: "message 1", label: "open the menu" }',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.steps).toEqual([
      { action: 'tap', target: '#save', index: 1, timeoutMs: 2500, source: src(3, 'tapOn') },
      { action: 'tap', target: '50%,90%', source: src(4, 'tapOn') },
      { action: 'tap', target: '100,200', optional: true, source: src(5, 'tapOn') },
      { action: 'double-tap', target: 'Photo', source: src(6, 'doubleTapOn') },
      { action: 'long-press', target: 'message 1', note: 'open the menu', source: src(7, 'longPressOn') },
    ]);
  });

  it('maps input, keys, links, waits, swipes and scrolls', () => {
    const plan = commands(
      '- inputText: 0123', // failsafe YAML: the leading zero is kept
      '- eraseText: 5',
      '- eraseText: { charactersToErase: 3 }',
      '- pressKey: Enter',
      '- pressKey: back',
      '- openLink: https://example.test/inbox',
      '- waitForAnimationToEnd: { timeout: 3000 }',
      '- extendedWaitUntil: { visible: { id: "title" }, timeout: 90000 }',
      '- extendedWaitUntil: { notVisible: "Loading" }',
      '- swipe: { direction: LEFT }',
      '- swipe: { start: "90%,50%", end: "10%,50%" }',
      '- swipe: { from: { id: "message-2" }, direction: RIGHT }',
      '- scroll',
      '- scrollUntilVisible: { element: { text: "Privacy" }, direction: UP, timeout: 120000, speed: 40, visibilityPercentage: 100, centerElement: false }',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map(({ source: _, ...s }) => s)).toEqual([
      { action: 'type', text: '0123' },
      { action: 'clear', count: 5 },
      { action: 'clear', count: 3 },
      { action: 'key', key: 'Enter' },
      { action: 'back' },
      { action: 'open', url: 'https://example.test/inbox' },
      { action: 'wait', for: 'settled', timeoutMs: 3000 },
      { action: 'wait', for: 'visible', target: '#title', timeoutMs: 60000 },
      { action: 'wait', for: 'not-visible', target: 'Loading' },
      { action: 'swipe', direction: 'left' },
      { action: 'swipe', target: '90%,50%', to: '10%,50%' },
      { action: 'swipe', direction: 'right', target: '#message-2' },
      { action: 'scroll', direction: 'down' },
      { action: 'scroll', to: 'Privacy', direction: 'up', timeoutMs: 60000 },
    ]);
  });

  it('reads text and id as Maestro reads them: plain text stays a label, a regular expression becomes a selector', () => {
    const plan = commands(
      String.raw`- tapOn: "Inbox \\(3\\)"`,
      '- tapOn: "Loading..."',
      '- tapOn: "Item \\\\d+"',
      '- assertVisible: ".*Welcome.*"',
      '- tapOn: { text: "Yes|No", index: 1 }',
      '- tapOn: "#1 pick"',
      '- tapOn: { id: "btn_.*" }',
      '- tapOn: "+1 (555)"',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map(({ source: _, ...s }) => s)).toEqual([
      { action: 'tap', target: 'Inbox (3)' },
      // dots match any character in Maestro: a pattern, matched as one
      { action: 'tap', select: { text: 'Loading...' } },
      { action: 'tap', select: { text: String.raw`Item \d+` } },
      { action: 'assert', that: 'visible', select: { text: '.*Welcome.*' }, timeoutMs: 7000 },
      { action: 'tap', select: { text: 'Yes|No', index: 1 } },
      // simfleet would read "#1 pick" as an id: it goes as a selector, matched as the text it is
      { action: 'tap', select: { text: '#1 pick' } },
      { action: 'tap', select: { id: 'btn_.*' } },
      // "+" alone does not compile: Maestro's fallback matches the text as written
      { action: 'tap', select: { text: '+1 (555)' } },
    ]);
  });

  it('refuses a pattern meant as a regular expression that does not compile, and Java-only syntax, naming file and line', () => {
    const plan = commands('- tapOn: ".*(Sign in"', '- assertVisible: { id: "row_[0-9" }', String.raw`- tapOn: "\\QPrice\\E"`, '- tapOn: ""');
    expect(where(plan)).toEqual([
      [3, 'tapOn', 'text'],
      [4, 'assertVisible', 'id'],
      [5, 'tapOn', 'text'],
      [6, 'tapOn', null],
    ]);
    expect(plan.problems[0]!.message).toBe(
      String.raw`text ".*(Sign in" is not a regular expression that compiles (Unterminated group); Maestro would look for these characters literally. Fix the pattern, or escape the characters meant as themselves (\( \[ \. \*)`,
    );
    expect(plan.problems[0]!.file).toBe('flows/main.yaml');
    expect(plan.problems[2]!.message).toContain('Java regular-expression syntax');
    expect(plan.steps).toEqual([]);
  });

  it('reads relative and state selectors, nested to any depth, into one selector', () => {
    const plan = commands(
      '- tapOn:',
      '    text: "Buy"',
      '    below: "Product.*"',
      '    enabled: true',
      '- tapOn: { id: "delete", childOf: { text: "Row 2" }, index: 0 }',
      '- assertVisible: { rightOf: { text: "Wi-Fi", above: { id: "footer" } }, checked: false }',
      '- scrollUntilVisible: { element: { text: "Total", containsChild: "€.*" } }',
      '- tapOn: { leftOf: "Email", focused: false, selected: true }',
      '- tapOn: { text: OK, below: "[" }',
      '- tapOn: { text: OK, enabled: maybe }',
    );
    expect(plan.steps.map(({ source, ...s }) => [source!.line, s])).toEqual([
      [3, { action: 'tap', select: { text: 'Buy', below: { text: 'Product.*' }, enabled: true } }],
      [7, { action: 'tap', select: { id: 'delete', index: 0, childOf: { text: 'Row 2' } } }],
      [8, { action: 'assert', that: 'visible', select: { rightOf: { text: 'Wi-Fi', above: { id: 'footer' } }, checked: false }, timeoutMs: 7000 }],
      [9, { action: 'scroll', select: { text: 'Total', containsChild: { text: '€.*' } }, direction: 'down' }],
      [10, { action: 'tap', select: { leftOf: { text: 'Email' }, focused: false, selected: true } }],
      [11, { action: 'tap', select: { text: 'OK', below: { text: '[' } } }],
    ]);
    // "[" alone does not compile and was not meant as a pattern: matched as written, escaped for a nested selector
    expect(where(plan)).toEqual([[12, 'tapOn', 'enabled']]);
  });

  it('reports unsupported options by name, on their own line, with what to write instead, and adds no step for that command', () => {
    const plan = commands(
      '- tapOn:',
      '    text: "Buy"',
      '    width: 100',
      '    traits: text',
      '- launchApp: { appId: com.other.app }',
      '- launchApp: { clearState: true, arguments: { a: 1 } }',
      '- tapOn: { text: "OK", colour: red }',
      '- pressKey: Home',
      '- back',
    );
    expect(where(plan)).toEqual([
      [5, 'tapOn', 'width'],
      [6, 'tapOn', 'traits'],
      [7, 'launchApp', 'appId'],
      [8, 'launchApp', 'arguments'],
      [9, 'tapOn', 'colour'],
      [10, 'pressKey', null],
    ]);
    expect(plan.problems[0]!.message).toBe(
      "option 'width' is not supported (size filters: simfleet selects by text, id, place and state); instead: select by text or id, with below, above, leftOf, rightOf, childOf or a state",
    );
    expect(plan.problems[4]!.message).toBe("unknown option 'colour'; instead: check its spelling and indentation against Maestro's documentation of tapOn");
    expect(plan.steps).toEqual([{ action: 'back', source: src(11, 'back') }]);
  });

  it("takes Maestro's pacing options: swipe duration, tapOn repeat and delay, scrollUntilVisible speed and the like, noting what differs", () => {
    const plan = commands(
      '- tapOn: { text: "OK", retryTapIfNoChange: true }',
      '- scrollUntilVisible: { element: "Privacy", speed: 80, visibilityPercentage: 50, centerElement: true, waitToSettleTimeoutMs: 500, optional: true }',
      '- swipe: { direction: UP, duration: 2000 }',
      '- swipe: { start: "10%,50%", end: "90%,50%", duration: 20 }',
      '- tapOn: { text: "Like", repeat: 2, delay: 100 }',
      '- tapOn: { text: "Version", repeat: 3 }',
      '- waitForAnimationToEnd: { timeout: 3000 }',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map(({ source, ...s }) => [source!.line, s])).toEqual([
      [3, { action: 'tap', target: 'OK' }],
      [4, { action: 'scroll', to: 'Privacy', direction: 'down', optional: true }],
      [5, { action: 'swipe', direction: 'up', durationMs: 2000 }],
      [6, { action: 'swipe', target: '10%,50%', to: '90%,50%', durationMs: 50 }],
      [7, { action: 'double-tap', target: 'Like' }],
      [8, { action: 'tap', target: 'Version', optional: true }],
      [8, { action: 'tap', target: 'Version', optional: true }],
      [8, { action: 'tap', target: 'Version' }],
      [9, { action: 'wait', for: 'settled', timeoutMs: 3000 }],
    ]);
    expect(plan.notes.map((n) => [n.line, n.option])).toEqual([
      [3, 'retryTapIfNoChange'],
      [4, 'speed'],
      [4, 'visibilityPercentage'],
      [4, 'centerElement'],
      [6, 'duration'],
      [8, 'repeat'],
    ]);
  });

  it('types a new random text, number, email or name every time the flow is read', () => {
    const a = commands(
      '- inputRandomText',
      '- inputRandomNumber: { length: 5 }',
      '- inputRandomEmail',
      '- inputRandomPersonName',
      '- inputRandomText: { length: 3 }',
    );
    const b = commands('- inputRandomText');
    expect(a.problems).toEqual([]);
    const [text, number, email, name, short] = a.steps.map((s) => s.text!);
    expect(text).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(number).toMatch(/^[1-9][0-9]{4}$/);
    expect(email).toMatch(/^[a-z]{10}@example\.com$/);
    expect(name).toMatch(/^[A-Z][a-z]+ [A-Z][A-Za-z-]+$/);
    expect(short).toHaveLength(3);
    expect(b.steps[0]!.text).not.toBe(text);
  });

  it('refuses AI commands whole, with the reason and what to write instead', () => {
    const plan = commands('- assertWithAI: { assertion: "A login form is shown" }', '- back', '- extractTextWithAI: { query: "price", outputVariable: p }');
    expect(where(plan)).toEqual([
      [3, 'assertWithAI', null],
      [5, 'extractTextWithAI', null],
    ]);
    expect(plan.problems[0]!.message).toBe(
      "unsupported command (Maestro's AI commands send the screen to a language model; a simfleet flow never sends the screen to a model); instead: assert what the model was asked to judge with assertVisible / assertNotVisible on the texts that show it",
    );
  });

  it('produces steps that the API Step schema accepts', () => {
    const validate = createAjv({ strict: false }).getSchema(`${CONTRACT_ID}#/$defs/Step`)!;
    const steps = [
      ...fromDisk(fixture('settings-tour.yaml')).steps,
      ...fromDisk(fixture('sign-up.yaml')).steps,
      ...commands(
        '- tapOn: { point: "10%,20%", optional: true, label: x }',
        '- swipe: { start: "1,2", end: "3,4" }',
        '- swipe: { from: A, direction: UP }',
        '- eraseText: 2',
        '- pressKey: Tab',
        '- openLink: https://a.test',
        '- extendedWaitUntil: { notVisible: { id: spinner, index: 2 }, timeout: 50 }',
      ).steps,
    ];
    expect(steps.length).toBeGreaterThan(40);
    for (const step of steps) expect(validate(step), `${JSON.stringify(step)}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });

  it('enforces the Step schema limits with problems instead of invalid steps', () => {
    const plan = commands(
      `- inputText: "${'x'.repeat(10_001)}"`,
      `- tapOn: "${'Long '.repeat(41)}"`,
      `- takeScreenshot: ${'s'.repeat(101)}`,
      `- back: { label: "${'n'.repeat(501)}" }`,
      '- tapOn: { text: OK, index: 101 }',
      '- inputText: "fine"',
    );
    expect(where(plan)).toEqual([
      [3, 'inputText', null],
      [4, 'tapOn', null],
      [5, 'takeScreenshot', null],
      [6, 'back', 'label'],
      [7, 'tapOn', 'index'],
    ]);
    expect(plan.problems[0]!.message).toBe('the text is 10001 characters long; simfleet takes 0 to 10000');
    expect(plan.steps).toEqual([{ action: 'type', text: 'fine', source: src(8, 'inputText') }]);
  });

  it('expands runFlow in place: sub-file steps carry the sub-file and its lines, env flows in, repeat unrolls', () => {
    const main = fixture('sign-up.yaml');
    const plan = fromDisk(main);
    const wizard = fixture('subflows/wizard-step-one.yaml');
    expect(plan.problems).toEqual([]);
    expect(plan.steps).toHaveLength(13);
    expect(plan.steps[0]).toEqual({ action: 'launch', source: src(3, 'launchApp', fixture('subflows/open-settings.yaml')) });
    expect(plan.steps.slice(4, 8)).toEqual([
      { action: 'tap', target: 'Name', source: src(6, 'tapOn', wizard) },
      { action: 'type', text: 'Grace Hopper', source: src(7, 'inputText', wizard) },
      { action: 'tap', target: 'Email', source: src(8, 'tapOn', wizard) },
      // runFlow's env wins over the sub-file's own default
      { action: 'type', text: 'grace@example.test', source: src(9, 'inputText', wizard) },
    ]);
    expect(plan.steps.slice(8)).toEqual([
      { action: 'tap', target: '#wizard-next', source: src(13, 'tapOn', main) },
      { action: 'scroll', direction: 'down', source: src(18, 'scroll', main) },
      { action: 'scroll', direction: 'down', source: src(18, 'scroll', main) },
      { action: 'tap', target: 'Not now', optional: true, source: src(19, 'tapOn', main) },
      { action: 'tap', target: 'OK', optional: true, note: 'Dismiss a leftover toast', source: src(26, 'tapOn', main) },
    ]);
  });

  it('lets the caller override the header env, and reports undefined variables and expressions', () => {
    const files = {
      'flows/main.yaml': ['appId: app', 'env:', '  WHO: grace', '---', '- inputText: "hi ${WHO}"', '- inputText: ${MISSING}', '- tapOn: "${1+1}"'].join('\n'),
    };
    const plan = flow(files, { WHO: 'ada' });
    expect(plan.env).toEqual({ MAESTRO_FILENAME: 'main', WHO: 'ada' });
    expect(plan.steps).toEqual([{ action: 'type', text: 'hi ada', source: src(5, 'inputText') }]);
    expect(plan.problems).toEqual([
      {
        file: 'flows/main.yaml',
        line: 6,
        command: 'inputText',
        message: 'undefined variable MISSING (define it under env: in the header or runFlow, or pass -e MISSING=...)',
      },
      {
        file: 'flows/main.yaml',
        line: 7,
        command: 'tapOn',
        message: '`${1+1}` is a JavaScript expression; simfleet runs no JavaScript yet, so only ${NAME} variables and plain values are substituted',
      },
    ]);
    expect(flow(files).steps[0]!.text).toBe('hi grace');
  });

  it('knows its own file name as MAESTRO_FILENAME, and writes an escaped \\${...} as it is', () => {
    const plan = commands('- takeScreenshot: ${MAESTRO_FILENAME}_end', '- inputText: "cost: \\\\${PRICE}"');
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map((s) => s.name ?? s.text)).toEqual(['main_end', 'cost: ${PRICE}']);
  });

  it("substitutes JavaScript's plain values as Maestro's engine prints them", () => {
    const plan = commands('- inputText: "${true}/${false}/${null}/${undefined}/${0}/${12.50}/${\'it\'}/${}"');
    expect(plan.problems).toEqual([]);
    expect(plan.steps[0]!.text).toBe('true/false/null/undefined/0/12.5/it/');
  });

  it('makes every step of an optional runFlow or repeat optional, and substitutes repeat times', () => {
    const plan = flow(
      {
        'flows/main.yaml': [
          '---',
          '- runFlow: { file: ../shared/dismiss.yaml, optional: true }',
          '- repeat:',
          '    times: ${N}',
          '    optional: true',
          '    commands:',
          '      - back',
        ].join('\n'),
        'shared/dismiss.yaml': ['- tapOn: Later', '- tapOn: Close'].join('\n'),
      },
      { N: '2' },
    );
    expect(plan.problems).toEqual([]);
    expect(plan.steps).toEqual([
      { action: 'tap', target: 'Later', optional: true, source: src(1, 'tapOn', 'shared/dismiss.yaml') },
      { action: 'tap', target: 'Close', optional: true, source: src(2, 'tapOn', 'shared/dismiss.yaml') },
      { action: 'back', optional: true, source: src(7, 'back') },
      { action: 'back', optional: true, source: src(7, 'back') },
    ]);
  });

  it('refuses include cycles and missing sub-files at the runFlow line', () => {
    const cycle = flow({
      'flows/main.yaml': ['appId: app', '---', '- back', '- runFlow: sub/b.yaml'].join('\n'),
      'flows/sub/b.yaml': ['appId: app', '---', '- scroll', '- runFlow: ../main.yaml'].join('\n'),
    });
    expect(cycle.problems).toEqual([
      { file: 'flows/sub/b.yaml', line: 4, command: 'runFlow', option: 'file', message: 'runFlow cycle: flows/main.yaml → flows/sub/b.yaml → flows/main.yaml' },
    ]);
    const missing = commands('- back', '- runFlow: { file: nowhere.yaml }');
    expect(missing.problems).toEqual([
      { file: 'flows/main.yaml', line: 4, command: 'runFlow', option: 'file', message: 'cannot read flows/nowhere.yaml: no such file' },
    ]);
  });

  it('unrolls a repeat of at most 50 times, makes a longer one a block, and stops at 200 steps', () => {
    const long = commands('- repeat: { times: 51, commands: [back] }');
    expect(long.problems).toEqual([]);
    expect(long.steps).toHaveLength(1);
    expect(long.blocks).toEqual([{ first: 0, last: 0, repeat: { times: 51 }, source: src(3, 'repeat') }]);
    expect(where(commands('- repeat: { times: 1001, commands: [back] }'))).toEqual([[3, 'repeat', 'times']]);
    const big = commands('- launchApp', '- repeat:', '    times: 50', '    commands: [back, scroll, back, scroll, { tapOn: OK }]');
    expect(big.steps).toHaveLength(1 + 39 * 5);
    expect(big.problems).toEqual([expect.objectContaining({ line: 4, command: 'repeat', message: expect.stringContaining('past 200 steps') })]);
  });

  it('makes runFlow when a block the runner checks: visible, notVisible and platform, inline or by file with env', () => {
    const plan = flow({
      'flows/main.yaml': [
        'appId: app',
        '---',
        '- runFlow:',
        '    when:',
        '      visible: "Accept( all)? cookies"',
        '    commands:',
        '      - tapOn: "Accept.*"',
        '- runFlow:',
        '    when: { notVisible: { id: "logged_in" }, platform: Android }',
        '    file: login.yaml',
        '    env: { USER: ada }',
        '- back',
      ].join('\n'),
      'flows/login.yaml': ['appId: app', '---', '- tapOn: Name', '- inputText: ${USER}'].join('\n'),
    });
    expect(plan.problems).toEqual([]);
    expect(plan.steps).toEqual([
      { action: 'tap', select: { text: 'Accept.*' }, source: src(7, 'tapOn') },
      { action: 'tap', target: 'Name', source: src(3, 'tapOn', 'flows/login.yaml') },
      { action: 'type', text: 'ada', source: src(4, 'inputText', 'flows/login.yaml') },
      { action: 'back', source: src(12, 'back') },
    ]);
    expect(plan.blocks).toEqual([
      { first: 0, last: 0, when: { visible: { text: 'Accept( all)? cookies' } }, source: src(3, 'runFlow') },
      { first: 1, last: 2, when: { platform: 'android', notVisible: { id: 'logged_in' } }, source: src(8, 'runFlow') },
    ]);
  });

  it('decides a when: true from its variables before the run, as Maestro tests a value for truth', () => {
    const body = ['- runFlow: { when: { true: "${SKIP}" }, commands: [back] }', '- runFlow: { when: { true: "${N}" }, commands: [scroll] }'];
    const on = flow({ 'flows/main.yaml': ['appId: app', '---', ...body].join('\n') }, { SKIP: 'yes', N: '0' });
    expect(on.steps.map((s) => s.action)).toEqual(['back']);
    expect(on.blocks).toEqual([]);
    const off = flow({ 'flows/main.yaml': ['appId: app', '---', ...body].join('\n') }, { SKIP: 'false', N: '2' });
    expect(off.steps.map((s) => s.action)).toEqual(['scroll']);
    const js = commands('- runFlow: { when: { true: "${output.loggedIn}" }, commands: [back] }');
    expect(where(js)).toEqual([[3, 'runFlow', 'true']]);
  });

  it('makes repeat while and retry blocks, nests them, and keeps optional and label on their steps', () => {
    const plan = commands(
      '- retry:',
      '    maxRetries: 2',
      '    commands:',
      '      - repeat:',
      '          while: { visible: "Load more" }',
      '          commands:',
      '            - tapOn: { text: "Load more", optional: true }',
      '      - assertVisible: "Item 3"',
      '- repeat: { times: 3, while: { notVisible: Done }, label: "until done", commands: [scroll] }',
      '- retry: { maxRetries: 7, commands: [back] }',
    );
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map(({ source, ...s }) => [source!.line, s])).toEqual([
      [9, { action: 'tap', target: 'Load more', optional: true }],
      [10, { action: 'assert', that: 'visible', target: 'Item 3', timeoutMs: 7000 }],
      [11, { action: 'scroll', direction: 'down', note: 'until done' }],
      [12, { action: 'back' }],
    ]);
    expect(plan.blocks).toEqual([
      { first: 0, last: 0, repeat: { while: { visible: { text: 'Load more' } } }, source: src(6, 'repeat') },
      { first: 0, last: 1, retries: 2, source: src(3, 'retry') },
      { first: 2, last: 2, repeat: { times: 3, while: { notVisible: { text: 'Done' } } }, source: src(11, 'repeat') },
      { first: 3, last: 3, retries: 3, source: src(12, 'retry') },
    ]);
    expect(plan.notes).toEqual([
      expect.objectContaining({ line: 12, command: 'retry', option: 'maxRetries', message: 'maxRetries 7 is cut to 3, as Maestro cuts it' }),
    ]);
  });

  it('runs onFlowStart first and onFlowComplete last as an always block; other header keys are noted, not refused', () => {
    const plan = flow({
      'flows/main.yaml': [
        'appId: app',
        'tags: [smoke]',
        'androidWebViewHierarchy: devtools',
        'onFlowStart:',
        '  - launchApp',
        'onFlowComplete:',
        '  - takeScreenshot: end',
        '---',
        '- back',
      ].join('\n'),
    });
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map((s) => [s.action, s.source!.line])).toEqual([
      ['launch', 5],
      ['back', 9],
      ['screenshot', 7],
    ]);
    expect(plan.blocks).toEqual([{ first: 2, last: 2, always: true, source: src(7, 'onFlowComplete') }]);
    expect(plan.notes.map((n) => [n.line, n.option, n.message])).toEqual([
      [
        3,
        'androidWebViewHierarchy',
        "header key 'androidWebViewHierarchy' is accepted and ignored (simfleet reads web views through the accessibility tree whatever this says)",
      ],
    ]);
  });

  it('refuses a repeat that never ends, a condition it cannot read, and a sub-flow that includes itself, naming file and line', () => {
    const plan = flow({
      'flows/main.yaml': [
        'appId: app',
        '---',
        '- repeat: { while: { true: "yes" }, commands: [back] }',
        '- runFlow: { when: { visible: ".*(oops" }, commands: [back] }',
        '- runFlow: { when: { platform: Windows }, commands: [back] }',
        '- runFlow: { when: { colour: red }, commands: [back] }',
        '- runFlow: loop.yaml',
        '- runFlow: { file: missing.yaml, when: { platform: ios } }',
      ].join('\n'),
      'flows/loop.yaml': ['appId: app', '---', '- back', '- runFlow: loop.yaml'].join('\n'),
    });
    expect(plan.problems.map((p) => [p.file, p.line, p.command, p.option ?? null])).toEqual([
      ['flows/main.yaml', 3, 'repeat', 'while'],
      ['flows/main.yaml', 4, 'runFlow', 'visible'],
      ['flows/main.yaml', 5, 'runFlow', 'platform'],
      ['flows/main.yaml', 6, 'runFlow', 'colour'],
      ['flows/loop.yaml', 4, 'runFlow', 'file'],
      ['flows/main.yaml', 8, 'runFlow', 'file'],
    ]);
    expect(plan.problems[4]!.message).toBe('runFlow cycle: flows/main.yaml → flows/loop.yaml → flows/loop.yaml');
    expect(plan.problems[5]!.message).toBe('cannot read flows/missing.yaml: no such file');
  });

  it('reports a YAML syntax error with its line, and an empty flow', () => {
    const plan = flow({ 'flows/main.yaml': ['appId: app', '---', '- back', '- inputText: "Hi": there', '- scroll'].join('\n') });
    expect(plan.steps).toEqual([]);
    expect(plan.problems).toEqual([
      { file: 'flows/main.yaml', line: 4, command: '', message: 'YAML syntax error: Nested mappings are not allowed in compact mappings' },
    ]);
    expect(flow({ 'flows/main.yaml': 'appId: app\n---\n[]\n' }).problems).toEqual([
      { file: 'flows/main.yaml', line: 0, command: '', message: 'the flow has no steps' },
    ]);
  });

  it('reports every unsupported command of the fixture on its line', () => {
    const plan = fromDisk(fixture('unsupported.yaml'));
    expect(where(plan)).toEqual([
      [4, 'runScript', null],
      [8, 'launchApp', 'permissions'],
      [12, 'tapOn', 'width'],
      [13, 'tapOn', 'text'],
      [15, 'evalScript', null],
      [16, 'copyTextFrom', null],
      [18, 'hideKeyboard', null],
      [19, 'setLocation', null],
      [30, 'inputText', null],
      [31, 'someFutureCommand', null],
    ]);
    expect(plan.problems[4]!.message).toMatch(/^unsupported command/);
    // inputRandomEmail, the repeat while and the swipe with a duration are no longer problems
    expect(plan.steps.map((s) => s.action)).toEqual(['type', 'scroll', 'swipe']);
  });
});

describe('simfleet maestro check', () => {
  const run = async (positionals: string[], json = false, env: Record<string, string> = {}) => {
    let out = '';
    let err = '';
    const code = await runMaestro(positionals, { json, env }, { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  };

  it('exits 2 with usage on stderr when no file is given', async () => {
    for (const args of [['check'], [], ['lint', 'a.yaml']]) {
      const r = await run(args);
      expect(r).toMatchObject({ code: 2, out: '' });
      expect(r.err).toMatch(/^usage: simfleet maestro check/);
    }
  });

  it('prints numbered steps with their source and exits 0 for a clean flow', async () => {
    const r = await run(['check', fixture('settings-tour.yaml'), fixture('sign-up.yaml')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`${fixture('settings-tour.yaml')}: appId simfleet-sample-app, "Settings tour", 21 steps`);
    expect(r.out).toMatch(/^ {3}2 {2}tap "Settings" +\(settings-tour\.yaml:9 tapOn\)$/m);
    expect(r.out).toMatch(/^ {3}6 {2}type "Grace Hopper" +\(subflows\/wizard-step-one\.yaml:7 inputText\)$/m);
    expect(r.out).toContain('ok: no problems');
  });

  it('prints every problem as file:line: command: message and exits 1', async () => {
    const file = fixture('unsupported.yaml');
    const r = await run(['check', fixture('settings-tour.yaml'), file]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('10 problems; the flow cannot run as written:');
    expect(r.out).toContain(`\n${file}:12: tapOn: option 'width' is not supported (size filters: simfleet selects by text, id, place and state); instead:`);
    expect(r.out).toContain(`\n${file}:31: someFutureCommand: unsupported command: someFutureCommand is not a Maestro command simfleet knows;`);
    expect((await run(['check', fixture('missing.yaml')])).out).toContain(`${fixture('missing.yaml')}: cannot read the flow: no such file`);
  });

  it('prints JSON plans with --json and passes -e variables in', async () => {
    const r = await run(['check', fixture('unsupported.yaml')], true, { COUPON: 'SAVE10' });
    const plans = JSON.parse(r.out) as MaestroPlan[];
    expect(plans).toHaveLength(1);
    expect(plans[0]!.env).toEqual({ MAESTRO_FILENAME: 'unsupported', COUPON: 'SAVE10' });
    expect(plans[0]!.problems.map((p) => p.line)).not.toContain(30);
    expect(r.code).toBe(1);
  });
});
