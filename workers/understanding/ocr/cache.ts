// Text recognition remembered by the pixels it was given. A screen read again (a settle that moved
// nothing in an untreed area, the same dialog shown twice, the same tab bar icons on every screen)
// hands the engine the same crops, and each costs a Tesseract process (tens to hundreds of ms).
// The answer depends only on the image and the layout asked for, so the same bytes get the same
// lines without asking again. Bounded; the oldest entry goes first.
import { createHash } from 'node:crypto';
import type { TextRecogniser } from './engine.js';
import type { OcrLine } from './tsv.js';

export class RecognitionCache implements TextRecogniser {
  private readonly entries = new Map<string, Promise<OcrLine[]>>();
  readonly counts = { hits: 0, misses: 0 };

  constructor(
    private readonly engine: TextRecogniser,
    private readonly capacity = 512,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  status(): ReturnType<TextRecogniser['status']> {
    return this.engine.status();
  }

  recognise(png: Buffer, layout: 'page' | 'line' = 'page', timeoutMs?: number): Promise<OcrLine[]> {
    const key = `${layout}:${createHash('sha256').update(png).digest('base64url')}`;
    const known = this.entries.get(key);
    if (known) {
      this.counts.hits++;
      this.entries.delete(key); // most recently used goes last
      this.entries.set(key, known);
      return known;
    }
    this.counts.misses++;
    const answer = this.engine.recognise(png, layout, timeoutMs);
    this.entries.set(key, answer);
    // A failed read (a timeout under load) is not an answer about the pixels: forget it.
    answer.catch(() => this.entries.delete(key));
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return answer;
  }
}
