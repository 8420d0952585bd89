// Maestro flow files (https://maestro.mobile.dev) → a simfleet plan: the flat list of steps the
// batch API runs, each pointing at the file and line it came from, the blocks that steer it, notes on
// what is read differently from Maestro, and every problem that stops the flow from running as
// written. A plan with any problem must not be run: nothing is dropped quietly.
//
// Supported (Maestro → simfleet step), semantics checked against Maestro's source and tests:
//   header            appId (or url), name, env, tags; onFlowStart first, onFlowComplete last as an
//                     always block; other keys (androidWebViewHierarchy, jsEngine, ...) noted
//   selectors         a plain text → a label, a plain id → #id; anything with regex syntax, relative
//                     (below/above/leftOf/rightOf/childOf/containsChild) or state (enabled/checked/
//                     focused/selected) filters → a `select` the worker matches as Maestro does
//                     (selector.ts); a pattern meant as a regex that does not compile is a problem
//   launchApp         launch (appId must be the flow's; clearState either way; stopApp: true)
//   tapOn             tap (repeat 2 → double-tap, more → that many taps; retryTapIfNoChange noted);
//                     doubleTapOn → double-tap; longPressOn → long-press; point; waitToSettleTimeoutMs
//   inputText, inputRandomText/Number/Email/PersonName (a new value each time the flow is read)
//   eraseText         clear (count from a number or charactersToErase)
//   pressKey          Enter, Backspace, Tab, Escape → key; Back → back;  back → back
//   openLink          open url (autoVerify/browser noted)
//   assertVisible     assert visible, timeoutMs 7000; assertNotVisible → assert not-visible
//   scrollUntilVisible scroll to element, direction, timeout; speed, visibilityPercentage,
//                     centerElement noted; out-of-range speed/timeout → Maestro's defaults
//   scroll, swipe     (duration → durationMs), waitForAnimationToEnd, extendedWaitUntil, takeScreenshot
//   runFlow           file or commands, with env, expanded inline; `when` (visible, notVisible,
//                     platform; `true` decided from its variables) → a block
//   repeat            times ≤ 50 unrolled; more, or `while` → a block;  retry → a block (≤ 3)
//   any command map   optional: true → optional (inside runFlow/repeat/retry: every step); label → note
// Variables: ${NAME} from the header env, runFlow env, the caller (-e) and MAESTRO_FILENAME; plain
// JavaScript values (${true}, ${0}, ${'text'}) are written as Maestro's engine prints them. Other
// JavaScript, AI commands and the commands in unsupported.ts are problems that say what to write
// instead. A plan holds at most 200 steps.
import { posix } from 'node:path';
import { scopeEnv } from './env.js';
import { contextFor, expand, hooks, type Build } from './expand.js';
import { readHeader } from './header.js';
import { parseFlow } from './parse.js';
import type { MaestroPlan, MaestroProblem } from './types.js';

export type { MaestroPlan, MaestroProblem, Step, StepBlock } from './types.js';
export { selectorText } from './selector.js';

/**
 * Parses the flow at `main`. `read` returns a file's text by path (runFlow paths are joined to the
 * including file's directory, posix style) and throws when there is none.
 */
export function parseMaestro(main: string, read: (path: string) => string, opts: { env?: Record<string, string> } = {}): MaestroPlan {
  // Env.withDefaultEnvVars: a flow knows its own file name; the caller may still say otherwise
  const caller = { MAESTRO_FILENAME: posix.basename(main).replace(/\.[^.]*$/, ''), ...(opts.env ?? {}) };
  const build: Build = { read, caller, appId: null, steps: [], blocks: [], problems: [], notes: [], included: [], full: false };
  const plan = (appId: string | null, name: string | null, env: Record<string, string>): MaestroPlan => ({
    file: main,
    appId,
    name,
    steps: build.steps,
    blocks: build.blocks,
    problems: unique(build.problems),
    notes: unique(build.notes),
    included: build.included,
    env,
  });
  let text: string;
  try {
    text = read(main);
  } catch (err) {
    build.problems.push({ file: main, line: 0, command: '', message: `cannot read the flow: ${(err as Error).message}` });
    return plan(null, null, { ...caller });
  }
  const parsed = parseFlow(text, (line, command, message) => build.problems.push({ file: main, line, command, message }));
  const header = readHeader(parsed.header, contextFor(build, main, parsed.header?.line ?? 0, 'header', caller));
  const env = scopeEnv({}, header.env, caller);
  build.appId = header.appId;
  const scope = { file: main, env, optional: false, note: undefined, chain: [main] };
  hooks(header.onFlowStart, scope, build);
  expand(parsed.commands, scope, build);
  // onFlowComplete runs however the flow ended (Orchestra runs it in a finally)
  const end = { steps: build.steps.length, blocks: build.blocks.length };
  hooks(header.onFlowComplete, scope, build);
  if (build.steps.length > end.steps && !build.full)
    build.blocks.push({
      first: end.steps,
      last: build.steps.length - 1,
      always: true,
      source: { file: main, line: header.onFlowComplete!.line, command: 'onFlowComplete' },
    });
  if (!build.steps.length && !build.problems.length) build.problems.push({ file: main, line: 0, command: '', message: 'the flow has no steps' });
  return plan(header.appId, header.name, env);
}

/** A repeated or twice-included command reports its problem once. */
function unique(problems: MaestroProblem[]): MaestroProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = JSON.stringify([p.file, p.line, p.command, p.option, p.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
