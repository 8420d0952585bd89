// The recognition cache: the same pixels and layout are read once; other pixels, another layout or
// a failed read go to the engine; the oldest entry goes first when it is full.
import { describe, expect, it } from 'vitest';
import { RecognitionCache } from '../../workers/understanding/ocr/cache.js';
import type { TextRecogniser } from '../../workers/understanding/ocr/engine.js';
import type { OcrLine } from '../../workers/understanding/ocr/tsv.js';

function engine(fail = new Set<string>()): TextRecogniser & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    status: async () => ({ available: true, detail: 'counting double' }),
    recognise: async (png, layout = 'page') => {
      calls.push(`${png.toString()}/${layout}`);
      if (fail.has(png.toString())) throw new Error('no answer within 8000 ms');
      return [{ text: png.toString(), left: 0, top: 0, width: 10, height: 10, conf: 90 } as OcrLine];
    },
  };
}

describe('the recognition cache', () => {
  it('reads the same pixels in the same layout once, and anything else afresh', async () => {
    const e = engine();
    const cache = new RecognitionCache(e);
    expect((await cache.recognise(Buffer.from('Inbox')))[0]!.text).toBe('Inbox');
    expect((await cache.recognise(Buffer.from('Inbox')))[0]!.text).toBe('Inbox');
    await cache.recognise(Buffer.from('Inbox'), 'line');
    await cache.recognise(Buffer.from('Search'));
    expect(e.calls).toEqual(['Inbox/page', 'Inbox/line', 'Search/page']);
    expect(cache.counts).toEqual({ hits: 1, misses: 3 });
  });

  it('forgets a failed read, so the next asks the engine again', async () => {
    const e = engine(new Set(['Slow']));
    const cache = new RecognitionCache(e);
    await expect(cache.recognise(Buffer.from('Slow'))).rejects.toThrow(/no answer/);
    await expect(cache.recognise(Buffer.from('Slow'))).rejects.toThrow(/no answer/);
    expect(e.calls).toEqual(['Slow/page', 'Slow/page']);
  });

  it('holds at most its capacity, letting the least recently used go', async () => {
    const e = engine();
    const cache = new RecognitionCache(e, 2);
    for (const t of ['A', 'B', 'A', 'C', 'A', 'B']) await cache.recognise(Buffer.from(t));
    // A was used again before C came, so B went; B is read again at the end.
    expect(e.calls).toEqual(['A/page', 'B/page', 'C/page', 'B/page']);
  });
});
