// Maestro commands simfleet knows of but cannot run, each with the reason a reader is shown, so an
// imported flow says why it stops instead of quietly doing less than it was written to do.
const REASONS: [string, string[]][] = [
  ['simfleet runs no JavaScript', ['evalScript', 'runScript', 'assertTrue']],
  ['simfleet has no clipboard commands', ['copyTextFrom', 'pasteText', 'setClipboard']],
  ['simfleet does not fake the location', ['setLocation', 'travel']],
  ['simfleet does not record video', ['startRecording', 'stopRecording']],
  ['simfleet does not add media to the device', ['addMedia']],
  [
    'a simfleet session starts clean and runs one app; its state is not managed by a flow',
    ['clearState', 'clearKeychain', 'killApp', 'stopApp', 'setPermissions'],
  ],
  ['simfleet does not change the network', ['setAirplaneMode', 'toggleAirplaneMode']],
  [
    'random input would make a run unrepeatable; write the text with inputText',
    [
      'inputRandomEmail',
      'inputRandomPersonName',
      'inputRandomNumber',
      'inputRandomText',
      'inputRandomCityName',
      'inputRandomCountryName',
      'inputRandomColorName',
    ],
  ],
  ['simfleet has no AI assertions', ['assertWithAI', 'assertNoDefectsWithAI', 'extractTextWithAI']],
  ['not supported yet', ['hideKeyboard', 'setOrientation']],
  ['simfleet retries a failed step by its own rules', ['retry']],
];

const BY_COMMAND = new Map(REASONS.flatMap(([why, names]) => names.map((n) => [n, why] as const)));

/** The problem message for a command no translator handles. */
export function unsupportedMessage(command: string): string {
  const why = BY_COMMAND.get(command);
  return why ? `unsupported command (${why})` : `unsupported command: ${command} is not a Maestro command simfleet knows`;
}
