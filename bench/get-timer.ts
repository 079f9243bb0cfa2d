// GETs timed from a process of their own (forked, IPC): a benchmark's own process holds watches
// and large heaps, and its pauses (a collection after a few megabytes read) would be counted as
// the server's latency. One keep-alive connection; each `time(path)` is one GET, timed to its last
// byte, answered 200 or thrown.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { http, keepAliveAgent } from './common.js';

type Ask = { base: string; path: string };
type Answer = { ms: number } | { error: string };

export interface GetTimer {
  time(path: string): Promise<number>;
  close(): void;
}

export function startGetTimer(base: string): GetTimer {
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // One GET at a time: answers come back in order.
  const waiting: Array<{ resolve(ms: number): void; reject(err: Error): void }> = [];
  child.on('message', (a: Answer) => {
    const w = waiting.shift()!;
    if ('ms' in a) w.resolve(a.ms);
    else w.reject(new Error(a.error));
  });
  return {
    time: (path) => new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.send({ base, path } satisfies Ask);
    }),
    close: () => child.kill(),
  };
}

function serve(): void {
  const agent = keepAliveAgent(1);
  process.on('message', (ask: Ask) => {
    void http(agent, ask.base + ask.path, 'GET', undefined, false).then(
      (r) => process.send!(r.status === 200 ? { ms: r.endAt - r.sentAt } : { error: `GET ${ask.path}: ${r.status}` } satisfies Answer),
      (err: unknown) => process.send!({ error: String(err) } satisfies Answer),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve();
