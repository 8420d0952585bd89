// Labels that look like they do something that cannot be undone. Batches, replays and fills never
// act on one unless that step says allowDestructive; an agent asking for one tap by name has said
// what it wants, but even then the target is found on a live read, never on a remembered outline
// (acting/act.ts).

const WORDS = [
  'delete', 'remove', 'erase', 'reset', 'wipe', 'discard', 'destroy', 'clear all', 'sign out', 'signout', 'log out', 'logout',
  'pay', 'buy', 'purchase', 'order', 'checkout', 'check out', 'submit', 'send', 'confirm payment', 'unsubscribe', 'deactivate',
  'cancel subscription', 'close account', 'transfer', 'publish', 'post', 'place order', 'uninstall', 'factory reset', 'revoke',
];
const PATTERN = new RegExp(`(^|[^\\p{L}])(${WORDS.map((w) => w.replace(/ /g, '\\s+')).join('|')})([^\\p{L}]|$)`, 'iu');

export function looksDestructive(label: string): boolean {
  return PATTERN.test(label);
}
