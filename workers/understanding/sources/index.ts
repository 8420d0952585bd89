// Saved accessibility dumps of real mobile apps, turned into the one element model the rest of
// simfleet reads (TreeSnapshot). This module tells the formats apart and reads the text; each
// source module knows one format. Everything the reading had to guess is said in `notes`.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { TreeSnapshot } from '../../devices/backend.js';
import { readAndroid } from './android-xml.js';
import { type JsonElement, isElement, readAxJson } from './ios-json.js';
import { readXcuitest } from './ios-xml.js';
import { DumpError, type XmlElement } from './roles.js';
import { ellipsize } from '../../text/clip.js';

export { DumpError } from './roles.js';

export type DumpFormat = 'uiautomator-xml' | 'xcuitest-xml' | 'idb-json' | 'axe-json';

export interface ParsedDump {
  format: DumpFormat;
  platform: 'android' | 'ios';
  snapshot: TreeSnapshot;
  /** Every guess and fallback the reading made, and what it left out. */
  notes: string[];
}

export interface ParseOptions {
  /** Skip detection; content that does not fit the format is refused. */
  format?: DumpFormat;
  /** Android pixels per dp; inferred from the screen width when not given. iOS dumps are points already. */
  density?: number;
}

const DESCRIBE: Record<DumpFormat, string> = {
  'uiautomator-xml': 'Android uiautomator/Appium XML (<hierarchy>)',
  'xcuitest-xml': 'XCUITest XML (<AppiumAUT>/<XCUIElementType…>)',
  'idb-json': 'idb describe-all JSON (an array of elements with AXFrame)',
  'axe-json': 'AXe describe-ui JSON (an array of elements with AXFrame and children)',
};
const EXPECTED =
  'Android uiautomator/Appium XML (<hierarchy>), XCUITest XML (<AppiumAUT>/<XCUIElementType…>), or idb/AXe JSON (an array of elements with AXFrame)';
const HOW_TO_SAVE =
  "save an Android screen with `adb exec-out uiautomator dump /dev/tty` or Appium's page source, an iOS screen with Appium's page source, `idb ui describe-all --json` or `axe describe-ui`";

/** What the text looks like, found without reading it as any one format. */
interface Sniff {
  format?: DumpFormat;
  /** For messages: "XML with root <svg>", "a JSON object with keys a, b". */
  found: string;
  empty?: true;
  /** The top-level elements, when the text is an idb/AXe array (parsed once, here). */
  elements?: JsonElement[];
  jsonError?: string;
}

export function detectFormat(text: string): DumpFormat | undefined {
  return typeof text === 'string' ? sniff(text).format : undefined;
}

export function parseDump(text: string, opts: ParseOptions = {}): ParsedDump {
  const started = performance.now();
  if (typeof text !== 'string') {
    throw new DumpError(
      'UNREADABLE',
      `expected the dump as text, found ${text === null ? 'null' : typeof text === 'object' ? ((text as object).constructor?.name ?? 'an object') : typeof text}`,
      'read the file as UTF-8 text first',
    );
  }
  const { density } = opts;
  if (density !== undefined && !(typeof density === 'number' && Number.isFinite(density) && density > 0)) {
    throw new RangeError(`density must be a positive number of pixels per dp (got ${String(density)})`);
  }
  const s = sniff(text);
  if (s.empty) throw new DumpError('UNREADABLE', `expected ${EXPECTED}, found ${s.found}`, HOW_TO_SAVE);
  if (s.jsonError !== undefined && (opts.format === undefined || isJson(opts.format))) {
    throw new DumpError(
      'UNREADABLE',
      `expected ${opts.format ? DESCRIBE[opts.format] : 'idb/AXe JSON'}, found malformed JSON: ${s.jsonError}`,
      'the file may be cut short; describe the screen again',
    );
  }
  const format = opts.format ?? s.format;
  if (format === undefined) throw new DumpError('UNKNOWN_FORMAT', `expected ${EXPECTED}, found ${s.found}`, HOW_TO_SAVE);
  // idb --nested and AXe write the same shape, so either JSON format reads either JSON layout.
  const fits = s.format === format || (s.format !== undefined && isJson(s.format) && isJson(format));
  if (!fits) {
    throw new DumpError(
      'UNREADABLE',
      `expected ${DESCRIBE[format]} (the format asked for), found ${s.format ? DESCRIBE[s.format] : s.found}`,
      s.format ? `pass format '${s.format}', or leave format out to detect it` : `leave format out to see what the content is; ${HOW_TO_SAVE}`,
    );
  }

  const notes: string[] = [];
  let snapshot: Omit<TreeSnapshot, 'durationMs'>;
  if (format === 'uiautomator-xml') {
    snapshot = readAndroid(readXml(text, format, notes), density, notes);
  } else {
    if (density !== undefined) notes.push(`density ${density} ignored: iOS dumps are in points already`);
    if (format === 'xcuitest-xml') {
      snapshot = readXcuitest(readXml(text, format, notes), notes);
    } else {
      const elements = s.elements!;
      if (s.format === 'axe-json' && format === 'axe-json' && !elements.some((el) => 'pid' in el))
        notes.push('nested JSON without pid read as AXe describe-ui; idb describe-all --nested writes the same shape');
      snapshot = readAxJson(elements, format === 'idb-json' ? 'idb' : 'axe', notes);
    }
  }
  return {
    format,
    platform: format === 'uiautomator-xml' ? 'android' : 'ios',
    snapshot: { ...snapshot, durationMs: Math.round((performance.now() - started) * 10) / 10 },
    notes,
  };
}

const isJson = (f: DumpFormat): boolean => f === 'idb-json' || f === 'axe-json';

function sniff(text: string): Sniff {
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body === '') return { found: text === '' ? 'empty input' : 'only whitespace', empty: true };
  if (body.startsWith('<')) {
    const root = rootTag(body);
    if (root === undefined) return { found: `text starting with "${excerpt(body)}" and no XML element` };
    if (root === 'hierarchy') return { format: 'uiautomator-xml', found: 'XML with root <hierarchy>' };
    if (root === 'AppiumAUT' || root.startsWith('XCUIElementType')) return { format: 'xcuitest-xml', found: `XML with root <${root}>` };
    return { found: `XML with root <${root}>` };
  }
  if (body.startsWith('[') || body.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      const lines = ndjson(body);
      if (!lines) return { found: 'malformed JSON', jsonError: (err as Error).message };
      value = lines;
    }
    return jsonShape(value);
  }
  return { found: `text starting with "${excerpt(body)}"` };
}

/** The first element's name, past the declaration, comments, processing instructions and doctype. */
function rootTag(body: string): string | undefined {
  const rest = body.replace(/^(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>\s*)*/i, '');
  return /^<([A-Za-z_][\w.:$-]*)/.exec(rest)?.[1];
}

/** Some idb builds print one JSON object per line instead of an array. */
function ndjson(body: string): unknown[] | undefined {
  const lines = body.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length < 2) return undefined;
  const out: unknown[] = [];
  for (const line of lines) {
    try {
      out.push(JSON.parse(line));
    } catch {
      return undefined;
    }
  }
  return out;
}

function jsonShape(value: unknown): Sniff {
  if (Array.isArray(value)) {
    if (value.length === 0) return { found: 'an empty JSON array' };
    const elements = value.filter(isElement);
    const framed = (el: JsonElement): boolean => 'AXFrame' in el || isElement(el.frame);
    if (elements.length === value.length && elements.every(framed)) {
      const nested = elements.some((el) => Array.isArray(el.children));
      return { format: nested ? 'axe-json' : 'idb-json', found: `a JSON array of ${nested ? 'nested' : 'flat'} elements`, elements };
    }
    const first = value[0];
    return { found: `a JSON array whose first entry is ${isElement(first) ? `an object with keys ${keys(first)}` : jsonKind(first)}` };
  }
  if (isElement(value)) {
    if ('AXFrame' in value) return { found: 'a single JSON element, not an array (idb ui describe-point describes one element, not the screen)' };
    return { found: `a JSON object with keys ${keys(value)}` };
  }
  return { found: jsonKind(value) };
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a JSON ${typeof v}`;
}

const keys = (o: object): string => {
  const k = Object.keys(o);
  return k.length === 0 ? '(none)' : k.slice(0, 6).join(', ') + (k.length > 6 ? ', …' : '');
};

const excerpt = (s: string): string => {
  const line = s.replace(/\s+/g, ' ');
  return ellipsize(line, 41);
};

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Numeric references (&#10; in multi-line Android text) are decoded only with this on.
  htmlEntities: true,
});

type Ordered = Record<string, unknown>;

/** Well-formed XML or a DumpError; the root element with children in document order. */
function readXml(text: string, format: DumpFormat, notes: string[]): XmlElement {
  let body = text.replace(/^\uFEFF/, '');
  if (format === 'uiautomator-xml') {
    // `adb exec-out uiautomator dump /dev/tty` prints "UI hierchary dumped to: /dev/tty" after the XML.
    const end = body.lastIndexOf('</hierarchy>');
    const tail = end >= 0 ? body.slice(end + '</hierarchy>'.length).trim() : '';
    if (tail !== '') {
      body = body.slice(0, end + '</hierarchy>'.length);
      notes.push(`text after </hierarchy> left out: "${excerpt(tail)}"`);
    }
  }
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new DumpError(
      'UNREADABLE',
      `expected well-formed ${DESCRIBE[format]}, found malformed XML at line ${line}${col ? `, column ${col}` : ''}: ${msg}`,
      'the file may be cut short or hand-edited; save the page source again',
    );
  }
  const root = (parser.parse(body) as Ordered[]).map(toElement).find((el) => el !== undefined);
  if (!root) throw new DumpError('UNREADABLE', `expected ${DESCRIBE[format]}, found XML without a root element`, HOW_TO_SAVE);
  return root;
}

function toElement(entry: Ordered): XmlElement | undefined {
  const tag = Object.keys(entry).find((k) => k !== ':@');
  if (tag === undefined || tag.startsWith('#') || tag.startsWith('?')) return undefined;
  const attrs: Record<string, string> = Object.create(null) as Record<string, string>;
  const raw = entry[':@'];
  if (isElement(raw)) for (const [k, v] of Object.entries(raw)) attrs[k] = String(v);
  const kids = entry[tag];
  const children: XmlElement[] = [];
  if (Array.isArray(kids)) {
    for (const kid of kids as Ordered[]) {
      const el = toElement(kid);
      if (el) children.push(el);
    }
  }
  return { tag, attrs, children };
}
