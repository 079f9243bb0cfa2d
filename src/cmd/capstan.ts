#!/usr/bin/env node
// The capstan command: flags → Options → server; writes an admin kubeconfig for kubectl.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServingMaterial } from '../server/certs.js';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';
import { makeDataDirPrivate, tightenedWarning } from './private-data-dir.js';
import { HELP, OptionsError, parseOptions, VERSION_LINE } from './options.js';

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

/** An admin kubeconfig: trusts capstan's CA and authenticates with a system:masters client certificate. */
function kubeconfig(server: string, material: ServingMaterial | undefined): string {
  const cluster = material
    ? `    server: ${server}\n    certificate-authority-data: ${b64(material.caCert)}`
    : `    server: ${server}\n    # Plain HTTP (--insecure-serving): client libraries refuse http:// without this.\n    insecure-skip-tls-verify: true`;
  const user = material ? `\n    client-certificate-data: ${b64(material.adminCert)}\n    client-key-data: ${b64(material.adminKey)}` : ' {}';
  return `apiVersion: v1
kind: Config
clusters:
- name: capstan
  cluster:
${cluster}
users:
- name: admin
  user:${user}
contexts:
- name: capstan
  context:
    cluster: capstan
    user: admin
    namespace: default
current-context: capstan
`;
}

/** The first line of what went wrong, as the one line a failed start prints. */
function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim();
}

/** Why a folder cannot be made, in words. */
function folderFailure(dir: string, err: unknown): Error {
  const code = (err as { code?: string }).code;
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOTDIR' || code === 'EEXIST' ? 'not a folder' : oneLine(err);
  return new Error(`cannot use --data-dir ${dir}: ${why}`);
}

/** From here on a failure prints its stack too (a bug rather than a setting, usually). */
let showStacks = false;

async function main(): Promise<void> {
  let commandLine;
  try {
    commandLine = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`capstan: ${err.message} (see capstan --help)\n`);
      process.exit(2);
    }
    throw err;
  }
  if (commandLine.help) {
    process.stdout.write(HELP);
    return;
  }
  if (commandLine.version) {
    process.stdout.write(`${VERSION_LINE}\n`);
    return;
  }
  showStacks = commandLine.options.verbosity >= 4;
  const started = performance.now();
  const options = { ...commandLine.options, dataDir: resolve(commandLine.options.dataDir) };
  const dataDir = options.dataDir;
  try {
    const tightened = makeDataDirPrivate(dataDir);
    if (tightened) process.stderr.write(`capstan: ${tightenedWarning(dataDir, tightened)}\n`);
  } catch (err) {
    throw folderFailure(dataDir, err);
  }
  // Before anything is written: a second server on the folder stops here, having changed nothing.
  let lock;
  try {
    lock = lockDataDir(dataDir);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw err;
    throw folderFailure(dataDir, err);
  }
  // The server is loaded only now, so that --help and --version answer at once.
  const { startServer } = await import('../server/server.js');
  const server = await startServer(options);
  const kubeconfigPath = `${dataDir}/kubeconfig`;
  const clientHost = options.bindAddress === '0.0.0.0' ? '127.0.0.1' : options.bindAddress;
  const scheme = server.material ? 'https' : 'http';
  writeFileSync(kubeconfigPath, kubeconfig(`${scheme}://${clientHost.includes(':') ? `[${clientHost}]` : clientHost}:${server.port}`, server.material), { mode: 0o600 });
  process.stdout.write(`capstan serving on ${server.url} (storage: ${options.storage}${options.storage === 'sqlite' ? ` in ${dataDir}` : ''}), ready in ${Math.round(performance.now() - started)} ms\nkubeconfig: ${kubeconfigPath}\n`);
  const stop = () => {
    server.close().then(() => {
      lock.release();
      process.exit(0);
    }, () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`capstan: ${oneLine(err)}\n`);
  if (showStacks && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
