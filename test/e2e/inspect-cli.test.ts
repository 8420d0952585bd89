// `simfleet inspect` as a user runs it: the built CLI on real corpus dumps and on bad files.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/processes.js';

const corpus = (f: string) => fileURLToPath(new URL(`../../../shared/corpus/${f}`, import.meta.url));
const SETTINGS = corpus('ios/ldi-github-shirates-core__XmlDataIos.SettingsTopScreen.xml');
const ACCESSIBILITY = corpus('ios/ldi-github-shirates-core__XmlDataIos.AccessibilityScreen.xml');
const ANDROID = corpus('android/ldi-github-shirates-core__XmlDataAndroid.NetworkAndInternetScreen.xml');

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, 'inspect', ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('simfleet inspect', () => {
  it("prints each dump's outline, fingerprint tokens and identity hash", async () => {
    const r = await run(SETTINGS, ANDROID);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(xcuitest-xml, ios, 31 nodes)');
    expect(r.stdout).toMatch(/ios \(xcuitest-xml\) · 390x844pt · screen [0-9a-f]{8} "Settings"\n/);
    expect(r.stdout).toMatch(/identity [0-9a-f]{8} title "Settings"\ntokens \(\d+\): /);
    expect(r.stdout).toContain('note: density not given; 2.625 inferred from a 1080 px wide screen');
    // The same files, the same bytes.
    expect((await run(SETTINGS, ANDROID)).stdout).toBe(r.stdout);
  });

  it('compares every pair, as text and as JSON', async () => {
    const text = await run('--compare', SETTINGS, ACCESSIBILITY, SETTINGS);
    expect(text.code).toBe(0);
    // A line saying the rule, then for each pair its decision and a line of evidence.
    expect(text.stdout.trim().split('\n')).toHaveLength(1 + 3 * 2);
    expect(text.stdout).toMatch(/^# same screen when the similarity is at least 0\.\d+ and nothing vetoes it\n/);
    expect(text.stdout).toMatch(/^different \d\.\d{3} .*\n {2}.*veto: title/m);
    expect(text.stdout).toMatch(/^same {6}1\.000 .*\n {2}ids \d+ of \d+\|\d+ \(1\.00\)/m);
    const json = JSON.parse((await run('--compare', '--json', SETTINGS, ACCESSIBILITY)).stdout);
    expect(json).toEqual({
      pairs: [
        {
          a: SETTINGS,
          b: ACCESSIBILITY,
          similarity: expect.any(Number),
          titleVeto: true,
          same: false,
          evidence: { families: expect.objectContaining({ ids: { a: 9, b: 6, shared: 0, score: 0 } }), vetoes: ['title'], titleSlot: false },
        },
      ],
      failures: [],
    });
  });

  it('compares the files it could read when one cannot be read, says which one and why, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-inspect-'));
    const junk = join(dir, 'notes.txt');
    await writeFile(junk, 'not a dump at all');
    const json = await run('--compare', '--json', SETTINGS, junk, ACCESSIBILITY, ANDROID);
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect(out.pairs.map((p: { a: string; b: string }) => [p.a, p.b])).toEqual([
      [SETTINGS, ACCESSIBILITY],
      [SETTINGS, ANDROID],
      [ACCESSIBILITY, ANDROID],
    ]);
    expect(out.failures).toEqual([
      { file: junk, error: expect.stringContaining(`${junk}: expected Android uiautomator/Appium XML`), hint: expect.any(String) },
    ]);
    const text = await run('--compare', SETTINGS, junk, ACCESSIBILITY);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/\ndifferent \d\.\d{3} {2}\S+SettingsTopScreen\.xml {2}\S+AccessibilityScreen\.xml\n {2}.*veto: title\n$/);
    expect(text.stderr).toContain(`${junk}: expected Android uiautomator/Appium XML`);
    // One file left: no pairs, and still one JSON document.
    expect(JSON.parse((await run('--compare', '--json', SETTINGS, join(dir, 'missing.xml'))).stdout)).toEqual({
      pairs: [],
      failures: [expect.objectContaining({ file: join(dir, 'missing.xml'), error: expect.stringContaining('no such file') })],
    });
  });

  it('names the file and what was expected when it cannot read one, and still reports the rest', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sf-inspect-'));
    const junk = join(dir, 'notes.txt');
    await writeFile(junk, 'not a dump at all');
    const r = await run('--json', junk, join(dir, 'missing.xml'), SETTINGS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${junk}: expected Android uiautomator/Appium XML`);
    expect(r.stderr).toContain('missing.xml: no such file');
    const out = JSON.parse(r.stdout);
    expect(out.files.map((f: { file: string }) => f.file)).toEqual([SETTINGS]);
    expect(out.failures).toHaveLength(2);
    // A forced format that does not fit, and a format nobody knows.
    expect((await run('--format', 'idb-json', SETTINGS)).stderr).toContain('expected idb describe-all JSON');
    const unknown = await run('--format', 'svg', SETTINGS);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown --format "svg"');
    expect((await run('--compare', SETTINGS)).code).toBe(2);
  });
});
