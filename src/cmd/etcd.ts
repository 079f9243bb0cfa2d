#!/usr/bin/env node
// The `etcd` command of `capstan envtest-assets`: the stand-in (etcd-stand-in.ts) on the client URLs given.
import { ETCD_VERSION, EtcdFlagError, etcdHelp, parseEtcdArgs, startStandIn } from './etcd-stand-in.js';

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseEtcdArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof EtcdFlagError)) throw err;
    process.stderr.write(`etcd: ${err.message}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(etcdHelp());
    return;
  }
  if (parsed.version) {
    process.stdout.write(`etcd Version: ${ETCD_VERSION.etcdserver} (capstan stand-in)\n`);
    return;
  }
  const servers = await startStandIn(parsed);
  process.stderr.write(`etcd (capstan stand-in) serving ${parsed.clientUrls.map((u) => u.origin).join(',')}\n`);
  const stop = () => {
    for (const server of servers) server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`etcd: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
