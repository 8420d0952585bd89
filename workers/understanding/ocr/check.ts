// Whether text recognition can run on this host: Tesseract, and its English data (every read asks
// for `-l eng`). The worker runs without it (outlines from the tree alone), but it is on unless
// SIMFLEET_TESSERACT=none, so a host that lacks it lacks something it was configured to use.
import { firstVersion, type HostCheck, installCommand, probe, type ProbeHost, said } from '../../host/probe.js';

/** The languages `tesseract --list-langs` names, after its "List of available languages" line. */
export function parseLangs(text: string): string[] | undefined {
  const lines = text.split(/\r?\n/);
  const head = lines.findIndex((l) => /^List of available languages/i.test(l));
  if (head < 0) return undefined;
  return lines
    .slice(head + 1)
    .map((l) => l.trim())
    .filter((l) => /^[A-Za-z0-9_]+$/.test(l));
}

export async function tesseractCheck(binary: string, host: ProbeHost): Promise<HostCheck> {
  const base = { id: 'tesseract', title: 'Tesseract and its English data (text recognition)', area: 'host' } as const;
  if (binary === 'none')
    return { ...base, needed: false, status: 'skipped', detail: 'turned off (SIMFLEET_TESSERACT=none): outlines use the accessibility tree alone' };
  const install = installCommand(host.platform, 'sudo apt-get install -y tesseract-ocr tesseract-ocr-eng', 'brew install tesseract');
  const [version, langs] = await Promise.all([probe(binary, ['--version'], { env: host.env }), probe(binary, ['--list-langs'], { env: host.env })]);
  if (!version.ok) {
    return {
      ...base,
      needed: true,
      status: version.kind === 'missing' ? 'missing' : 'broken',
      detail: version.message,
      fix: `${install}, or set SIMFLEET_TESSERACT`,
    };
  }
  const v = firstVersion(version.out.split('\n')[0] ?? '');
  const found = `${said(version.out.split('\n')[0] ?? '')} at ${binary}`;
  const names = langs.ok ? parseLangs(langs.out) : undefined;
  const withVersion = v ? { version: v } : {};
  if (!names)
    return {
      ...base,
      needed: true,
      status: 'broken',
      detail: `${found}; its languages could not be listed: ${langs.ok ? said(langs.out) : langs.message}`,
      fix: install,
      ...withVersion,
    };
  if (!names.includes('eng')) {
    const fix = installCommand(host.platform, 'sudo apt-get install -y tesseract-ocr-eng', 'brew reinstall tesseract');
    return {
      ...base,
      needed: true,
      status: 'broken',
      detail: `${found}; no English data (eng.traineddata): it has ${names.join(', ') || 'no languages'}`,
      fix,
      ...withVersion,
    };
  }
  return { ...base, needed: true, status: 'ok', detail: `${found}; languages: ${names.join(', ')}`, ...withVersion };
}
