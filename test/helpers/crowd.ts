// The stream crowd (stream-crowd.mjs) in a child process, and the one question-and-answer helper
// the streams test and the streams bench both use to drive it over IPC.
import { fork, type ChildProcess } from 'node:child_process';

const CROWD = new URL('./stream-crowd.mjs', import.meta.url).pathname;

export interface Crowd {
  /** Sends a message and resolves with the field `key` of the first reply that has it. */
  ask<T>(msg: object, key: string): Promise<T>;
  kill(): void;
}

export function startCrowd(): Crowd {
  const child: ChildProcess = fork(CROWD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    ask: <T>(msg: object, key: string) =>
      new Promise<T>((resolve) => {
        const on = (m: Record<string, unknown>) => {
          if (key in m) {
            child.off('message', on);
            resolve(m[key] as T);
          }
        };
        child.on('message', on);
        child.send(msg);
      }),
    kill: () => void child.kill(),
  };
}
