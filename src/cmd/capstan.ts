#!/usr/bin/env node
// The capstan command: flags → Options → server; writes an admin kubeconfig for kubectl.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startServer } from '../server/server.js';
import { HELP, OptionsError, parseOptions } from './options.js';

function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: capstan
  cluster:
    server: ${server}
    # Plain HTTP for now: client libraries such as @kubernetes/client-node refuse http:// without it.
    insecure-skip-tls-verify: true
users:
- name: admin
  user: {}
contexts:
- name: capstan
  context:
    cluster: capstan
    user: admin
    namespace: default
current-context: capstan
`;
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`capstan: ${err.message}\n\n${HELP}`);
      process.exit(2);
    }
    throw err;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return;
  }
  const started = performance.now();
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const server = await startServer({ bindAddress: options.bindAddress, port: options.securePort, storage: options.storage, dataDir, historyWindowMs: options.watchHistoryWindowMs });
  const kubeconfigPath = `${dataDir}/kubeconfig`;
  const clientHost = options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress;
  writeFileSync(kubeconfigPath, kubeconfig(`http://${clientHost.includes(':') ? `[${clientHost}]` : clientHost}:${server.port}`));
  process.stdout.write(`capstan serving on ${server.url} (storage: ${options.storage}${options.storage === 'sqlite' ? ` in ${dataDir}` : ''}), ready in ${Math.round(performance.now() - started)} ms\nkubeconfig: ${kubeconfigPath}\n`);
  const stop = () => {
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`capstan: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
