// `simfleet maestro test|run FILE|DIR... --session ID` and `simfleet replay NAME --session ID`: run flows on a
// leased device through the gateway, print each step as it was judged, and for CI write a JUnit
// report (--junit FILE) with the look image and the outline of a failed step saved next to it.
// A Maestro file with anything simfleet cannot run is refused before any step runs.
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Schemas } from '../../openapi/contract.js';
import { junitXml, type JunitSuite } from '../domain/flows/junit.js';
import { parseMaestro, type MaestroProblem } from '../domain/flows/maestro/index.js';
import { flowPaths, problemText, readFlow } from './maestro.js';
import { call, GatewayError, type ClientSettings } from './gateway-client.js';

export interface RunOptions {
  session: string;
  junit: string | undefined;
  env: Record<string, string>;
  out: (text: string) => void;
}

export async function runMaestroFiles(
  paths: string[],
  s: ClientSettings,
  o: RunOptions & { tags?: { include?: string[]; exclude?: string[] } },
): Promise<number> {
  const chosen = flowPaths(paths, o.tags ?? {});
  const plans = chosen.files.map((file) => parseMaestro(file, readFlow, { env: o.env }));
  const problems: MaestroProblem[] = [...chosen.problems, ...plans.flatMap((p) => p.problems)];
  if (problems.length) {
    for (const p of problems) o.out(`${problemText(p)}\n`);
    o.out(`refused: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was run (simfleet maestro check lists them)\n`);
    return 1;
  }
  const suites: JunitSuite[] = [];
  for (const plan of plans) {
    const name = plan.name ?? basename(plan.file);
    o.out(`${name} (${plan.file}): ${plan.steps.length} steps\n`);
    const run = await call<Schemas['DoResult']>(s, 'POST', `/v1/sessions/${o.session}/do`, {
      steps: plan.steps,
      ...(plan.blocks.length ? { blocks: plan.blocks } : {}),
    });
    suites.push(await report(name, run, plan.steps, s, o));
    // a workspace's executionOrder stops at its first failure unless it says continueOnFailure
    if (run.divergence && suites.length <= chosen.sequence && !chosen.continueOnFailure) {
      o.out(`stopped: ${name} failed in the workspace's executionOrder (continueOnFailure: false)\n`);
      break;
    }
  }
  if (o.junit) await writeFile(o.junit, junitXml(suites));
  return suites.some((x) => x.run.divergence) ? 1 : 0;
}

export async function runReplay(flow: string, s: ClientSettings, o: RunOptions & { app?: string; from?: number; planDigest?: string }): Promise<number> {
  const saved = await call<Schemas['Flow']>(s, 'GET', `/v1/flows/${encodeURIComponent(flow)}${o.app ? `?app=${encodeURIComponent(o.app)}` : ''}`);
  o.out(`${flow} v${saved.summary.version} (${saved.summary.app}): ${saved.steps.length} steps\n`);
  const body: Schemas['ReplayRequest'] = {
    flow,
    app: saved.summary.app,
    version: saved.summary.version,
    ...(o.from !== undefined ? { from: o.from } : {}),
    ...(o.planDigest ? { planDigest: o.planDigest } : {}),
  };
  const run = await call<Schemas['DoResult']>(s, 'POST', `/v1/sessions/${o.session}/replay`, body);
  const suite = await report(`${flow} v${saved.summary.version}`, run, saved.steps, s, o);
  if (o.junit) await writeFile(o.junit, junitXml([suite]));
  return run.divergence ? 1 : 0;
}

/** Prints the run, and saves the failed moment's image and outline when there is a report to go with. */
async function report(name: string, run: Schemas['DoResult'], steps: Schemas['Step'][], s: ClientSettings, o: RunOptions): Promise<JunitSuite> {
  for (const r of run.steps)
    o.out(
      `  ${String(r.index).padStart(3)} ${r.status.padEnd(7)} ${r.verdict ?? '-'} ${r.detail}${r.triage.length ? ` [${r.triage.map((t) => t.decision).join(', ')}]` : ''}\n`,
    );
  const d = run.divergence;
  if (!d) {
    o.out(`  passed: ${run.completed} steps in ${run.totalMs} ms\n`);
    return { name, run, steps };
  }
  o.out(`  stopped at step ${d.index}: ${d.code}: ${d.message}\n  hint: ${d.hint}\n  resume: --from ${d.resume.from} --plan-digest ${d.resume.planDigest}\n`);
  const artifacts: string[] = [];
  if (o.junit) {
    const dir = dirname(o.junit);
    const stem = `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}-step${d.index}`;
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${stem}.outline.txt`), `${d.message}\nhint: ${d.hint}\n\n${d.outline}`);
    artifacts.push(`${stem}.outline.txt`);
    try {
      const look = await call<Schemas['DoResult']>(s, 'POST', `/v1/sessions/${o.session}/do`, { steps: [{ action: 'screenshot', name: stem }] });
      const image = look.steps[0]?.image;
      if (image) {
        await writeFile(join(dir, `${stem}.png`), Buffer.from(image, 'base64'));
        artifacts.push(`${stem}.png`);
      }
    } catch (err) {
      o.out(`  (no image saved: ${err instanceof GatewayError ? `${err.code}: ${err.message}` : String(err)})\n`);
    }
  }
  return { name, run, steps, artifacts };
}
