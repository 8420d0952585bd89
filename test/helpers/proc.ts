// This machine's processes as /proc shows them: each one's command name and parent. The tests that
// look at Chromium's processes (its command line, its memory) find them this way.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcEntry {
  pid: number;
  comm: string;
  ppid: number;
}

/** Every process now; one that exits while the table is read is left out. */
export function processTable(): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // gone while we looked
    }
    // The command name is in parentheses and may itself hold spaces and parentheses: the fields
    // after it start past the last ')'.
    const close = stat.lastIndexOf(')');
    out.push({ pid: Number(d), comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(stat.slice(close + 2).split(' ')[1]) });
  }
  return out;
}

/** The processes below `root`, at any depth. */
export function descendantsOf(root: number, table: ProcEntry[] = processTable()): ProcEntry[] {
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return table.filter((p) => under(p.pid));
}

/** A process's argv; empty for one gone meanwhile. */
export function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}
