// The tests' one setup step (`npm test` and `npm run test:acceptance` run it first): the system
// packages the suites need — Chromium (the web device), Tesseract with its English data (text
// recognition) and the Postgres server binaries (a throwaway server when none answers, and the
// suites that restart one) — checked with the same checks `simfleet doctor` runs, and installed
// with the machine's package manager when missing: apt-get as root or through `sudo -n`, Homebrew
// on macOS. Present packages are skipped; nothing else is installed or downloaded.
//
//   node --import tsx test/setup/host.ts [--check] [--json]
//
// --check (or SIMFLEET_TEST_SETUP=check) only reports. --json prints the report for machines:
// {"ok", "installed": [...], "missing": [{"id", "detail", "install"}]}. Exit 0 when everything is
// there (after installing), 1 when something is still missing, with the command that installs it.
import { setup } from './packages.js';

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--check' && a !== '--json');
if (unknown.length) {
  process.stderr.write(`usage: node --import tsx test/setup/host.ts [--check] [--json] (unknown: ${unknown.join(' ')})\n`);
  process.exit(2);
}
const report = await setup({ check: args.includes('--check') || process.env.SIMFLEET_TEST_SETUP === 'check' });
if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = report.ok ? 0 : 1;
