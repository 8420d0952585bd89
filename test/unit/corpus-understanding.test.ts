// Understanding on data nobody here wrote: the real accessibility dumps in ../shared/corpus. Every
// dump reads to an outline, the same bytes twice; sizes are printed and held to the goals; different
// screens of one app are never taken for one another. The corpus's two same-screen groups are both
// judgement calls (one screen in two locales, one from two OS builds) and are reported, not scored:
// same-screen recall is measured on the sample app at other scroll positions, times and contents
// (test/browser/understanding.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compare } from '../../workers/understanding/identity.js';
import { normaliseLabel } from '../../workers/understanding/names.js';
import { outlineText } from '../../workers/understanding/outline.js';
import { readScreen, type ScreenReading } from '../../workers/understanding/screen.js';
import { parseDump } from '../../workers/understanding/sources/index.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
interface Group {
  platform: string;
  app: string;
  files: string[];
  note: string;
}
const groups = JSON.parse(readFileSync(new URL('labels.json', CORPUS), 'utf8')).groups as Record<string, Group>;
const entries = Object.entries(groups).flatMap(([group, g]) =>
  g.files.map((file) => ({ group, file, app: g.app, platform: g.platform, judgement: g.note.startsWith('AMBIGUOUS') || g.files.length > 1 })),
);

function outline(file: string): { text: string; raw: number; treeJson: number; reading: ScreenReading } {
  const raw = readFileSync(new URL(file, CORPUS), 'utf8');
  const dump = parseDump(raw);
  const reading = readScreen(dump.snapshot, dump.platform);
  const text = outlineText(reading, { device: `${dump.platform} (${dump.format})`, screenId: reading.fingerprint.hash, name: reading.title });
  return { text, raw: raw.length, treeJson: JSON.stringify(dump.snapshot).length, reading };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

describe('the real corpus', () => {
  it('reads every dump to an outline, byte-identical across two runs, within the size goals', () => {
    expect(entries.length).toBe(18);
    const rows = entries.map(({ file }) => {
      const a = outline(file);
      const b = outline(file);
      expect(b.text, file).toBe(a.text);
      expect(a.text.split('\n')[0], file).toMatch(/^(android|ios) \(.*\) · \d+x\d+pt · screen [0-9a-f]{8}/);
      return { file: file.split('__')[1]!, chars: a.text.length, raw: a.raw, treeJson: a.treeJson, lines: a.text.split('\n').length - 1 };
    });
    console.log(
      `| dump | outline chars | raw dump chars | ratio | normalised tree JSON | ratio |\n|---|---|---|---|---|---|\n${rows.map((r) => `| ${r.file} | ${r.chars} | ${r.raw} | 1/${(r.raw / r.chars).toFixed(1)} | ${r.treeJson} | 1/${(r.treeJson / r.chars).toFixed(1)} |`).join('\n')}`,
    );
    const chars = median(rows.map((r) => r.chars));
    const rawRatio = median(rows.map((r) => r.raw / r.chars));
    console.log(
      `median outline ${chars} chars; median raw/outline ${rawRatio.toFixed(1)}; median normalised-tree/outline ${median(rows.map((r) => r.treeJson / r.chars)).toFixed(1)}`,
    );
    expect(chars).toBeLessThanOrEqual(1500);
    expect(rawRatio).toBeGreaterThanOrEqual(15);
  });

  it('invents no names: every label, value and title an outline prints is one the tree gave', () => {
    let checked = 0;
    for (const { file } of entries) {
      const raw = readFileSync(new URL(file, CORPUS), 'utf8');
      const dump = parseDump(raw);
      const said = new Set(dump.snapshot.nodes.flatMap((x) => [x.label, x.value ?? ''].map(normaliseLabel).filter(Boolean)));
      // A long label is printed cut, ending in an ellipsis: its start must be one the tree gave.
      const given = (s: string) => said.has(s) || (s.endsWith('…') && [...said].some((t) => t.startsWith(s.slice(0, -1))));
      const { text, reading } = outline(file);
      // Every quoted string on every line: the header's screen name, a modal's name, labels, values.
      for (const line of text.split('\n')) {
        for (const q of line.match(/"(?:[^"\\]|\\.)*"/g) ?? []) {
          const s = JSON.parse(q) as string;
          expect(given(s), `${file}: ${JSON.stringify(s)} in ${line}`).toBe(true);
          checked++;
        }
      }
      // A row's detail (its further texts, joined with commas), unquoted after "·": each part given.
      reading.elements.forEach((e, i) => {
        if (reading.refs[i] === null || !e.detail) return;
        for (const part of e.detail.split(', '))
          expect(
            [...said].some((t) => t.includes(part)),
            `${file}: detail ${JSON.stringify(part)}`,
          ).toBe(true);
        checked++;
      });
    }
    console.log(`labels, values, titles and details checked against their trees: ${checked}`);
    expect(checked).toBeGreaterThan(200);
  });

  it('never takes two different screens of one app for one screen', () => {
    const fp = new Map(entries.map((e) => [e.file, outline(e.file).reading.fingerprint]));
    let pairs = 0;
    let separated = 0;
    const report: string[] = [];
    for (let i = 0; i < entries.length; i++) {
      for (let j = i + 1; j < entries.length; j++) {
        const [a, b] = [entries[i]!, entries[j]!];
        // Screens are remembered per platform and app, so only those pairs could ever be confused.
        if (a.app !== b.app || a.platform !== b.platform) continue;
        const c = compare(fp.get(a.file)!, fp.get(b.file)!);
        if (a.group === b.group) {
          report.push(`judgement call ${a.group}: similarity ${c.similarity}, title veto ${c.titleVeto} → ${c.same ? 'same' : 'different'}`);
          continue;
        }
        pairs++;
        if (!c.same) separated++;
        else report.push(`CONFUSED ${a.file} | ${b.file}: ${c.similarity}`);
      }
    }
    console.log(`different-screen pairs separated: ${separated}/${pairs}\n${report.join('\n')}`);
    expect(pairs).toBeGreaterThanOrEqual(50);
    expect(separated / pairs).toBeGreaterThanOrEqual(0.99);
  });

  it('reads real screens the way a person would: titles, bars, rows and named toggles', () => {
    const settings = outline('ios/ldi-github-shirates-core__XmlDataIos.SettingsTopScreen.xml');
    expect(settings.reading.title).toBe('Settings');
    expect(settings.text).toMatch(
      /\[content\] list #1\.\.#13, 13 visible\n@\d+ #1 cell 195,179 "Sign in to your iPhone" · Set up iCloud, the App Store, and more\.\n/,
    );
    const android = outline('android/ldi-github-shirates-core__XmlDataAndroid.DateAndTime_en.xml');
    expect(android.reading.title).toBe('Date & time'); // named by the collapsing toolbar, not a role
    expect(android.text).toContain('switch 365,243 "Set time automatically" #switch_widget on'); // the row's name, on its switch
    const keyboards = outline('ios/ldi-github-shirates-core__XmlDataIos.KeyboardScreen.xml');
    expect(keyboards.text.match(/About Dictation and Privacy/g)).toHaveLength(1); // three nodes, one control
    const line = outline('ios/lycorp-jp-sim-use__Tests_Fixtures_list-detection_account-settings.raw.json');
    expect(line.reading.title).toBe('アカウント');
    expect(line.reading.regions.top).not.toBeNull();
    expect(line.reading.regions.bottom).toBeNull(); // two rows at the end of a page are no tab bar
    // Android's toolbar title is leading, after the navigation button, with actions to its right:
    // one build's "Security" sat 89 pt from the middle and was read as no title at all.
    for (const file of ['SecurityScreen', 'SecurityScreen2'])
      expect(outline(`android/ldi-github-shirates-core__XmlDataAndroid.${file}.xml`).reading.title, file).toBe('Security');
  });
});
