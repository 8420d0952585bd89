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
  // A crowd that died answers nothing: a question asked of it fails instead of waiting forever.
  let gone: Error | undefined;
  child.once('exit', (code, signal) => (gone = new Error(`the stream crowd exited (${signal ?? code})`)));
  return {
    ask: <T>(msg: object, key: string) =>
      new Promise<T>((resolve, reject) => {
        if (gone) return reject(gone);
        const on = (m: Record<string, unknown>) => {
          if (key in m) {
            child.off('message', on);
            child.off('exit', died);
            resolve(m[key] as T);
          }
        };
        const died = () => {
          child.off('message', on);
          reject(gone);
        };
        child.on('message', on);
        child.once('exit', died);
        child.send(msg);
      }),
    kill: () => void child.kill(),
  };
}
