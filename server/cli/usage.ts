// Each command's own usage, printed for `simfleet COMMAND --help` (exit 0). One table, so a new
// command without an entry fails its test rather than answering "Unknown option '--help'".

const CLIENT = `  --gateway URL (SIMFLEET_URL)  --token T (SIMFLEET_TOKEN)  --json: the API's answer as is`;
const DEVICE = `  --session ID (SIMFLEET_SESSION)\n${CLIENT}`;

export const USAGE: Record<string, string> = {
  start: `usage: simfleet start [flags]
  the gateway, a local worker for this machine's devices and an embedded Postgres (unless
  DATABASE_URL is set), in one process
  --port N  --host H  --data-dir DIR  --web-devices iphone-15[:N],pixel-8|none  --chromium PATH
  every setting: docs/configuration.md (each SIMFLEET_* variable is also a flag)`,
  gateway: `usage: simfleet gateway [flags]
  the API gateway alone, for a farm: workers dial it with a worker token
  --port N  --host H  --data-dir DIR  (DATABASE_URL names the shared Postgres)
  every setting: docs/configuration.md`,
  worker: `usage: simfleet worker --gateway URL --token T [flags]
  a host agent: reports this host's devices to the gateway and drives them
  (SIMFLEET_GATEWAY_URL and SIMFLEET_WORKER_TOKEN; a token with role worker)
  every setting: docs/configuration.md`,
  migrate: `usage: simfleet migrate [--status]
  apply the database migrations and exit; --status only reports what is applied and pending`,
  doctor: `usage: simfleet doctor [--json] [worker flags]
  checks this host for what each backend needs (Chromium, Tesseract, adb, the emulator, Xcode's
  simctl, AXe or idb, disk, memory, the browser sandbox), and the gateway, its clock and Postgres
  when configured; says for each: ok (version), missing (the command that installs it) or broken (why)
  exit 0 when everything the configured backends need is there, 1 when not; --json: HostDoctorReport
  the worker's settings decide which backends are configured (--web-devices, --adb, --xcrun, ...)`,
  token: `usage: simfleet token create --role admin|agent|viewer|worker --name N [--team T]
       simfleet token list
       simfleet token revoke ID
  through a running gateway: --gateway URL (SIMFLEET_GATEWAY_URL), --admin-token T
  (SIMFLEET_ADMIN_TOKEN, else the admin-token file in --data-dir); create prints the secret alone`,
  inspect: `usage: simfleet inspect FILE... [--json] [--format F] [--density D]
       simfleet inspect --compare FILE FILE... [--json]
  read saved screen dumps offline: outline, fingerprint, identity; --compare says same or different`,
  maestro: `usage: simfleet maestro check FILE... [--json]
       simfleet maestro run FILE... --session ID [--junit FILE] [-e KEY=VAL]...
  check parses Maestro flows without a device; run runs them on a session's device
  (--token T or SIMFLEET_TOKEN for run)`,
  replay: `usage: simfleet replay NAME --session ID [--app A] [--from N --plan-digest D] [--junit FILE]
  replay a saved flow; it stops before a wrong touch with a divergence report`,
  mcp: `usage: simfleet mcp
  an MCP server on stdio for AI agents, driving devices through the gateway
  (SIMFLEET_URL, SIMFLEET_TOKEN; SIMFLEET_SESSION as the default session)`,
  session: `usage: simfleet session new [--platform web|android|ios] [--app URL] [--wait S]
       simfleet session list
       simfleet session end [ID]
${CLIENT}`,
  ui: `usage: simfleet ui\n  the screen's outline (text; --json for the elements)\n${DEVICE}`,
  tap: `usage: simfleet tap TARGET [--role R] [--index N]\n  TARGET: @N, #N, #id, a label, or x,y in points\n${DEVICE}`,
  type: `usage: simfleet type TEXT [--into TARGET]\n${DEVICE}`,
  swipe: `usage: simfleet swipe up|down|left|right\n${DEVICE}`,
  scroll: `usage: simfleet scroll up|down|left|right [--distance PT]\n       simfleet scroll --to TARGET\n${DEVICE}`,
  back: `usage: simfleet back\n${DEVICE}`,
  open: `usage: simfleet open URL\n${DEVICE}`,
  do: `usage: simfleet do FILE|-\n  a JSON list of steps (or {"steps": [...]}) in one call; - reads stdin\n${DEVICE}`,
  wait: `usage: simfleet wait [--for settled|visible|not-visible] [--target T] [--timeout MS]\n${DEVICE}`,
  mark: `usage: simfleet mark\n  take a mark; simfleet changes --since MARK says what changed since\n${DEVICE}`,
  changes: `usage: simfleet changes [--since MARK]\n${DEVICE}`,
  look: `usage: simfleet look [--out FILE] [--scale S] [--crop x,y,w,h] [--format jpeg|png]\n${DEVICE}`,
  permission: `usage: simfleet permission grant|revoke|reset NAME
  NAME: location, location-always, camera, microphone, contacts, photos, calendar, reminders,
  motion, notifications or all, for the session's app
${DEVICE}`,
  flow: `usage: simfleet flow record NAME | save | discard | list | replay NAME [--from N --plan-digest D]\n${DEVICE}`,
};

/** `--help` or `-h` anywhere among a command's arguments. */
export function asksForHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}
