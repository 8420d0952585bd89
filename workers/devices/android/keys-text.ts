// Keys and text as `input` command lines for the device's shell. `input text` turns "%s" into a
// space and has no escape for a literal "%s", so text is cut between "%" and "s" where the user
// typed them, and spaces are written as "%s". Each piece is single-quoted for the device's shell
// (adb hands `shell` one command line, which the device splits again). Newlines and tabs are keys,
// not text. `input text` maps characters through the device's key map, which holds printable ASCII
// only: anything else would be dropped or fail on the device, so it is refused here, saying so.
import { DeviceError } from '../backend.js';
import { shellQuote } from './adb.js';

const KEYCODES: Record<string, string> = {
  Enter: 'KEYCODE_ENTER',
  Backspace: 'KEYCODE_DEL',
  Delete: 'KEYCODE_FORWARD_DEL',
  Tab: 'KEYCODE_TAB',
  Escape: 'KEYCODE_ESCAPE',
  ArrowUp: 'KEYCODE_DPAD_UP',
  ArrowDown: 'KEYCODE_DPAD_DOWN',
  ArrowLeft: 'KEYCODE_DPAD_LEFT',
  ArrowRight: 'KEYCODE_DPAD_RIGHT',
  Home: 'KEYCODE_HOME',
  Back: 'KEYCODE_BACK',
  Space: 'KEYCODE_SPACE',
  PageUp: 'KEYCODE_PAGE_UP',
  PageDown: 'KEYCODE_PAGE_DOWN',
};

export function keyCommand(name: string): string {
  const code = KEYCODES[name];
  if (!code) {
    throw new DeviceError('VALIDATION_FAILED', `Android has no key called ${JSON.stringify(name)} here`, `use one of ${Object.keys(KEYCODES).join(', ')}`);
  }
  return `input keyevent ${code}`;
}

/** The command lines that type `text`, in order (empty for empty text). */
export function textCommands(text: string): string[] {
  const bad = [...text].find((c) => !/[\x20-\x7e\n\t]/.test(c));
  if (bad !== undefined) {
    const shown = bad.codePointAt(0)! < 0x20 ? `U+${bad.codePointAt(0)!.toString(16).padStart(4, '0')}` : bad;
    throw new DeviceError(
      'VALIDATION_FAILED',
      `Android's \`input text\` types printable ASCII only; "${shown}" cannot be typed this way`,
      'type ASCII text, or enter other characters through the app (paste, an IME the app offers)',
    );
  }
  const out: string[] = [];
  for (const part of text.split(/([\n\t])/)) {
    if (part === '\n') out.push('input keyevent KEYCODE_ENTER');
    else if (part === '\t') out.push('input keyevent KEYCODE_TAB');
    else if (part) for (const piece of part.split(/(?<=%)(?=s)/)) out.push(`input text ${shellQuote(piece.replace(/ /g, '%s'))}`);
  }
  return out;
}
