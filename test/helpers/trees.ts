// Hand-built trees for unit tests of the understanding layer: a node is [role, label, x, y, w, h]
// plus options, children nest. Points, on a 393 × 852 pt screen unless given.
import type { NodeStates, ScreenSize, TreeNode, TreeSnapshot } from '../../workers/devices/backend.js';

export interface N {
  role: string;
  label?: string;
  value?: string | null;
  frame: [number, number, number, number];
  id?: string;
  interactive?: boolean;
  states?: NodeStates;
  nameFrom?: 'placeholder';
  children?: N[];
}

const INTERACTIVE = new Set(['button', 'link', 'textfield', 'switch', 'checkbox', 'radio', 'slider', 'tab', 'cell']);

export function n(role: string, label: string, frame: [number, number, number, number], more: Partial<N> = {}): N {
  return { role, label, frame, ...more };
}

export function tree(roots: N[], screen: ScreenSize = { widthPt: 393, heightPt: 852, scale: 3 }): TreeSnapshot {
  const nodes: TreeNode[] = [];
  const visit = (x: N, parent: number | null) => {
    const index = nodes.length;
    const interactive = x.interactive ?? INTERACTIVE.has(x.role);
    const [fx, fy, fw, fh] = x.frame;
    nodes.push({
      index,
      parent,
      role: x.role,
      label: x.label ?? '',
      value: x.value ?? null,
      states: x.states ?? {},
      frame: { x: fx, y: fy, width: fw, height: fh },
      id: x.id ?? null,
      source: 'web',
      interactive,
      unnamed: interactive && !(x.label ?? ''),
      offscreen: fy >= screen.heightPt || fy + fh <= 0 || fx >= screen.widthPt || fx + fw <= 0,
      ...(x.nameFrom ? { nameFrom: x.nameFrom } : {}),
    });
    for (const c of x.children ?? []) visit(c, index);
  };
  for (const r of roots) visit(r, null);
  return { nodes, skippedInvisible: 0, screen, durationMs: 0 };
}

/** A phone screen: a nav bar with a title, `rows` list rows of 56 pt from y = 100, a tab bar. */
export function listScreen(title: string, rows: string[], opts: { tabs?: string[]; scrollY?: number; back?: string } = {}): TreeSnapshot {
  const y0 = 100 - (opts.scrollY ?? 0);
  return tree([
    n('header', '', [0, 0, 393, 88], {
      children: [...(opts.back ? [n('button', opts.back, [8, 44, 80, 36])] : []), n('heading', title, [140, 50, 113, 24])],
    }),
    n('list', '', [0, 88, 393, 700], {
      children: rows.map((r, i) => n('cell', '', [0, y0 + i * 56, 393, 56], { children: [n('text', r, [16, y0 + i * 56 + 18, 300, 20])] })),
    }),
    n('tabbar', '', [0, 768, 393, 84], {
      children: (opts.tabs ?? ['Home', 'Settings']).map((t, i, all) =>
        n('tab', t, [(i * 393) / all.length, 772, 393 / all.length, 48], { states: i === 0 ? { selected: true } : {} }),
      ),
    }),
  ]);
}
