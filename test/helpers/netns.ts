// A farm host's own network, where the machine allows it: a Linux network namespace joined to this
// one by a veth pair, made with iproute2 (`ip netns`, `ip link`). A process started in it reaches
// this namespace only through the pair, so taking the pair's link down is a real partition: packets
// are dropped by the kernel, nobody is told, and TCP connections hang exactly as when a switch dies.
// Where namespaces cannot be made (no root, no iproute2), callers fall back to loopback and a relay.
import { execFileSync } from 'node:child_process';

export interface HostNetwork {
  /** The namespace's name, for `ip netns exec`. */
  name: string;
  /** This side's address on the pair: what a process in the namespace dials to reach us. */
  hostIp: string;
  /** The prefix that runs a command inside the namespace. */
  exec: string[];
  /** Drops every packet between the namespace and us until heal(). */
  cut(): void;
  heal(): void;
  destroy(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Whether namespaces can be made here: tries one and removes it. */
export function netnsAvailable(): boolean {
  const probe = `sfprobe${process.pid}`;
  try {
    ip('netns', 'add', probe);
    ip('netns', 'del', probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * A namespace for host `index` (0–63) of this test process, on 10.213.<index>.0/30. Interface names
 * are at most 15 characters, so they carry the process id modulo 10,000.
 */
export function createHostNetwork(index: number): HostNetwork {
  const tag = `${process.pid % 10_000}x${index}`;
  const name = `sfhost${tag}`;
  const outside = `sfo${tag}`;
  const inside = `sfi${tag}`;
  const hostIp = `10.213.${index}.1`;
  const nsIp = `10.213.${index}.2`;
  try {
    ip('netns', 'add', name);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `${hostIp}/30`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${nsIp}/30`, 'dev', inside);
    ip('netns', 'exec', name, 'ip', 'link', 'set', inside, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (err) {
    try {
      ip('netns', 'del', name); // takes the pair with it
    } catch {
      /* never made */
    }
    throw err;
  }
  return {
    name,
    hostIp,
    exec: ['ip', 'netns', 'exec', name],
    cut: () => ip('link', 'set', outside, 'down'),
    heal: () => ip('link', 'set', outside, 'up'),
    destroy: () => {
      try {
        ip('netns', 'del', name);
      } catch {
        /* already gone */
      }
    },
  };
}
