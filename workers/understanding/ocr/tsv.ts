// Tesseract's TSV answer to words and lines. Pure: what the engine printed in, boxes in the
// crop's pixels out. Words below a confidence floor are dropped (Tesseract fills blank pixels with
// low-confidence "words" made of edges), as are words with no letter or digit in them.
export interface OcrWord {
  text: string;
  /** 0–100, Tesseract's own. */
  conf: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface OcrLine {
  text: string;
  /** The mean of its words'. */
  conf: number;
  words: OcrWord[];
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Below this a word is more likely an edge than a letter. */
export const MIN_WORD_CONF = 60;

export function parseTsv(tsv: string): OcrLine[] {
  const lines = new Map<string, OcrWord[]>();
  for (const row of tsv.split('\n').slice(1)) {
    const c = row.split('\t');
    if (c.length < 12 || c[0] !== '5') continue; // level 5: a word
    const text = c.slice(11).join('\t').trim();
    const conf = Number(c[10]);
    if (!text || !/[\p{L}\p{N}]/u.test(text) || !(conf >= MIN_WORD_CONF)) continue;
    const key = `${c[2]}.${c[3]}.${c[4]}`; // block, paragraph, line
    const word = { text, conf, left: Number(c[6]), top: Number(c[7]), width: Number(c[8]), height: Number(c[9]) };
    lines.set(key, [...(lines.get(key) ?? []), word]);
  }
  return [...lines.values()].map((words) => {
    const left = Math.min(...words.map((w) => w.left));
    const top = Math.min(...words.map((w) => w.top));
    const right = Math.max(...words.map((w) => w.left + w.width));
    const bottom = Math.max(...words.map((w) => w.top + w.height));
    return {
      text: words.map((w) => w.text).join(' '),
      conf: words.reduce((s, w) => s + w.conf, 0) / words.length,
      words,
      left,
      top,
      width: right - left,
      height: bottom - top,
    };
  });
}
