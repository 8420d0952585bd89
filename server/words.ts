// Small pieces of English the gateway's messages share.

/** "a web session", "an agent token": the article a word takes (by its first letter, which fits every role and platform). */
export function a(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
