// Maestro commands simfleet knows of but cannot run, each with the reason a reader is shown and what
// to write instead, so an imported flow says why it stops instead of quietly doing less than it was
// written to do.
interface Refusal {
  why: string;
  instead: string;
  commands: string[];
}

const REFUSALS: Refusal[] = [
  {
    why: 'simfleet runs no JavaScript yet: a script needs a sandboxed engine simfleet does not have',
    instead: 'pass values with -e NAME=value and write ${NAME}; check a screen with assertVisible',
    commands: ['evalScript', 'runScript', 'assertTrue', 'defineVariables'],
  },
  {
    why: "Maestro's AI commands send the screen to a language model; a simfleet flow never sends the screen to a model",
    instead: 'assert what the model was asked to judge with assertVisible / assertNotVisible on the texts that show it',
    commands: ['assertWithAI', 'assertNoDefectsWithAI', 'extractTextWithAI'],
  },
  {
    why: 'simfleet has no clipboard commands',
    instead: 'type the text with inputText (pass it with -e NAME=value)',
    commands: ['copyTextFrom', 'pasteText', 'setClipboard'],
  },
  {
    why: 'simfleet does not fake the location',
    instead: 'open the app where the location is already set, or leave the step out',
    commands: ['setLocation', 'travel'],
  },
  {
    why: 'simfleet does not record video',
    instead: 'use takeScreenshot at the moments that matter (a failed run keeps its image and outline)',
    commands: ['startRecording', 'stopRecording'],
  },
  { why: 'simfleet does not add media to the device', instead: 'put the media in the app build or the test account', commands: ['addMedia'] },
  {
    why: 'a simfleet session starts clean and runs one app; its state is not managed by a flow',
    instead: 'lease a fresh session for a clean start; launchApp opens the app afresh',
    commands: ['clearState', 'clearKeychain', 'killApp', 'stopApp', 'setPermissions'],
  },
  {
    why: 'simfleet does not change the network',
    instead: 'run the offline case on a device the farm keeps offline, or leave the step out',
    commands: ['setAirplaneMode', 'toggleAirplaneMode'],
  },
  {
    why: 'simfleet has no lists of cities, countries or colours',
    instead: 'write the text with inputText, or use inputRandomText',
    commands: ['inputRandomCityName', 'inputRandomCountryName', 'inputRandomColorName'],
  },
  { why: 'the keyboard is not a step in simfleet', instead: 'tap outside the field, or pressKey: Enter', commands: ['hideKeyboard'] },
  {
    why: 'the device orientation is set when the session is leased',
    instead: 'lease a device in the orientation the flow needs',
    commands: ['setOrientation'],
  },
];

const BY_COMMAND = new Map(REFUSALS.flatMap((r) => r.commands.map((c) => [c, r] as const)));

/** The problem message for a command no translator handles. */
export function unsupportedMessage(command: string): string {
  const r = BY_COMMAND.get(command);
  return r
    ? `unsupported command (${r.why}); instead: ${r.instead}`
    : `unsupported command: ${command} is not a Maestro command simfleet knows; see simfleet's Maestro page for the commands it runs`;
}
