// The pod watchers of bench/scale.ts, in a process of their own (forked, IPC), as the kubelets and
// controllers that watch pods are other clients than the one whose latencies are measured: told
// {base, rv, count}, opens `count` watches of all pods from `rv` and answers 'ready'; told 'stop',
// answers each watch's count of events (sorted) and ends them.
import { get, type ClientRequest } from 'node:http';
import { pathToFileURL } from 'node:url';

export interface PodWatchersStart {
  base: string;
  rv: string;
  count: number;
}

function main(): void {
  process.once('message', (start: PodWatchersStart) => {
    const counts = new Array<number>(start.count).fill(0);
    const requests: ClientRequest[] = [];
    for (let w = 0; w < start.count; w++) {
      const req = get(`${start.base}/api/v1/pods?watch=1&resourceVersion=${start.rv}&allowWatchBookmarks=false`, { agent: false }, (res) => {
        res.on('data', (c: Buffer) => {
          for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) counts[w]!++;
        });
        res.on('error', () => undefined);
      });
      req.on('error', () => undefined);
      requests.push(req);
    }
    process.send!('ready');
    process.once('message', () => {
      process.send!([...counts].sort((a, b) => a - b), () => {
        for (const req of requests) req.destroy();
        process.disconnect();
      });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
