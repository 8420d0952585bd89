// Labels that look like they do something that cannot be undone. Batches, replays and fills never
// act on one unless that step says allowDestructive; an agent asking for one tap by name has said
// what it wants, but even then the target is found on a live read, never on a remembered outline
// (acting/act.ts).

const WORDS = [
  'delete',
  'remove',
  'erase',
  'reset',
  'wipe',
  'discard',
  'destroy',
  'clear all',
  'sign out',
  'signout',
  'log out',
  'logout',
  'pay',
  'buy',
  'purchase',
  'order',
  'checkout',
  'check out',
  'submit',
  'send',
  'confirm payment',
  'unsubscribe',
  'deactivate',
  'cancel subscription',
  'close account',
  'transfer',
  'publish',
  'post',
  'place order',
  'uninstall',
  'factory reset',
  'revoke',
];
// Whole words only ("Sender", "Deleted items" and "Display" are not "send", "delete", "pay"), case
// and spacing ignored, a hyphen taken for a space ("Sign-out").
const PATTERN = new RegExp(`(^|[^\\p{L}])(${WORDS.map((w) => w.replace(/ /g, '[\\s-]*')).join('|')})([^\\p{L}]|$)`, 'iu');

// Some of those words are also nouns for a place to look: "Order history", "Post details", "Sort
// order", "Track order" lead to a list, they commit nothing. A guard that stops every replay at them
// would be switched off; they are taken out before the words are looked for, so "Delete order
// history" still counts.
const NOUNS = 'orders?|posts?|transfers?|purchases?';
const LOOKING = [
  `(${NOUNS})\\s+(history|details|status|summary|number|id|tracking|list|info|information|settings|options|preferences|confirmation)`,
  `(sort|track|view|recent|past|previous)\\s+(${NOUNS})`,
];
const NOUN_USE = new RegExp(`(^|[^\\p{L}])(${LOOKING.join('|')})(?=[^\\p{L}]|$)`, 'giu');

export function looksDestructive(label: string): boolean {
  return PATTERN.test(label.replace(NOUN_USE, '$1 '));
}
