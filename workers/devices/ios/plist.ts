// Property lists as simctl and Xcode write them: `simctl appinfo` prints the old OpenStep text form
// ({ Key = value; … }), and an app bundle's Info.plist is usually binary (bplist00), sometimes XML.
// Only reading is needed, and only strings, dictionaries and arrays matter here.

export type PlistValue = string | PlistValue[] | { [key: string]: PlistValue };

export class PlistError extends Error {
  override readonly name = 'PlistError';
}

/** The OpenStep text form: dictionaries, arrays, quoted and bare strings. */
export function parseOpenStep(text: string): PlistValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new PlistError(`expected ${what} at character ${i} of the property list, found ${JSON.stringify(text.slice(i, i + 12))}`);
  };
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (text.startsWith('//', i)) i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
      else if (text.startsWith('/*', i)) i = text.indexOf('*/', i) < 0 ? text.length : text.indexOf('*/', i) + 2;
      else return;
    }
  };
  const string = (): string => {
    if (text[i] === '"') {
      let s = '';
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] !== '\\') {
          s += text[i];
          continue;
        }
        const c = text[++i];
        if (c === 'n') s += '\n';
        else if (c === 't') s += '\t';
        else if (c === 'U' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
          s += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
          i += 4;
        } else s += c ?? '';
      }
      if (text[i] !== '"') fail('a closing quote');
      i++;
      return s;
    }
    const m = /^[A-Za-z0-9_$+/:.-]+/.exec(text.slice(i));
    if (!m) return fail('a string');
    i += m[0].length;
    return m[0];
  };
  const value = (): PlistValue => {
    skip();
    if (text[i] === '{') {
      const dict: Record<string, PlistValue> = {};
      i++;
      for (skip(); text[i] !== '}'; skip()) {
        if (i >= text.length) fail('"}"');
        const key = string();
        skip();
        if (text[i++] !== '=') fail('"="');
        dict[key] = value();
        skip();
        if (text[i++] !== ';') fail('";"');
      }
      i++;
      return dict;
    }
    if (text[i] === '(') {
      const list: PlistValue[] = [];
      i++;
      for (skip(); text[i] !== ')'; skip()) {
        if (i >= text.length) fail('")"');
        list.push(value());
        skip();
        if (text[i] === ',') i++;
      }
      i++;
      return list;
    }
    if (text[i] === '<') {
      const end = text.indexOf('>', i);
      if (end < 0) fail('">"');
      const data = text.slice(i, end + 1);
      i = end + 1;
      return data;
    }
    return string();
  };
  const result = value();
  skip();
  if (i < text.length) fail('the end of the property list');
  return result;
}

/** One string entry of a top-level dictionary, from an Info.plist in any of the three forms. */
export function infoPlistString(data: Buffer, key: string): string | null {
  if (data.subarray(0, 8).toString('latin1') === 'bplist00') return binaryString(data, key);
  const text = data
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<')) {
    const m = new RegExp(`<key>${key}</key>\\s*<string>([^<]*)</string>`).exec(text);
    return m
      ? m[1]!
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&apos;/g, "'")
          .replace(/&amp;/g, '&')
      : null;
  }
  const doc = parseOpenStep(text);
  const v = typeof doc === 'object' && !Array.isArray(doc) ? doc[key] : undefined;
  return typeof v === 'string' ? v : null;
}

/** bplist00: a trailer says where the offset table is; objects are typed by their marker byte. */
function binaryString(buf: Buffer, key: string): string | null {
  if (buf.length < 40) throw new PlistError('binary property list shorter than its trailer');
  const t = buf.length - 32;
  const offsetSize = buf[t + 6]!;
  const refSize = buf[t + 7]!;
  const count = Number(buf.readBigUInt64BE(t + 8));
  const top = Number(buf.readBigUInt64BE(t + 16));
  const table = Number(buf.readBigUInt64BE(t + 24));
  const uint = (at: number, size: number): number => {
    if (at + size > buf.length) throw new PlistError('binary property list points past its end');
    return buf.readUIntBE(at, size);
  };
  const offsetOf = (ref: number): number => {
    if (ref >= count) throw new PlistError(`binary property list refers to object ${ref} of ${count}`);
    return uint(table + ref * offsetSize, offsetSize);
  };
  // The length of strings and collections: in the marker, or in an int object after it.
  const lengthAt = (at: number): [number, number] => {
    const low = buf[at]! & 0x0f;
    if (low !== 0x0f) return [low, at + 1];
    const size = 1 << (buf[at + 1]! & 0x0f);
    return [uint(at + 2, size), at + 2 + size];
  };
  const stringAt = (ref: number): string | null => {
    const at = offsetOf(ref);
    const type = buf[at]! >> 4;
    if (type !== 0x5 && type !== 0x6) return null;
    const [n, start] = lengthAt(at);
    if (type === 0x5) return buf.toString('latin1', start, start + n);
    const chars: number[] = [];
    for (let k = 0; k < n; k++) chars.push(uint(start + 2 * k, 2));
    return String.fromCharCode(...chars);
  };
  const at = offsetOf(top);
  if (buf[at]! >> 4 !== 0xd) throw new PlistError('binary property list whose top object is not a dictionary');
  const [n, start] = lengthAt(at);
  for (let k = 0; k < n; k++) {
    if (stringAt(uint(start + k * refSize, refSize)) === key) return stringAt(uint(start + (n + k) * refSize, refSize));
  }
  return null;
}
