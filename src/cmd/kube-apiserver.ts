#!/usr/bin/env node
// `kube-apiserver` for test environments (controller-runtime's envtest, scripts written for the
// reference): capstan started from the reference's command line. Every flag kube-apiserver 1.25
// accepts is accepted; those capstan has work as the capstan command's; the few it reads
// differently are translated here; the rest are named once in the log as having no effect.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readDataJson } from '../api/data.js';
import { versionInfo } from '../server/version.js';
import { STAND_IN_PATH } from './etcd-stand-in.js';
import { OptionsError, parseOptions, type CommandLine, type Dialect } from './options.js';
import { oneLine, serve } from './serve.js';

interface ReferenceFlag {
  name: string;
  /** The type word the reference's help prints ("bool" for a switch). */
  type: string;
  default: string | null;
}

/** kube-apiserver 1.25's flags (data/kube-apiserver-flags.json). */
const REFERENCE_FLAGS = readDataJson<ReferenceFlag[]>('kube-apiserver-flags.json');

/** The reference's flags read here rather than by the capstan command's table. */
const HANDLED = ['etcd-servers', 'allow-privileged', 'insecure-port', 'insecure-bind-address'] as const;

export const KUBE_APISERVER_DIALECT: Dialect = {
  flags: new Map([
    ...REFERENCE_FLAGS.map((f) => [f.name, f.type === 'bool' ? 'bool' : 'value'] as const),
    // Removed in 1.24, still passed by older scripts (envtest passes it only when --help lists it).
    ['insecure-port', 'value'],
    ['insecure-bind-address', 'value'],
  ]),
  handled: HANDLED,
};

/** The reference's --help: its synopsis, then every flag with its type and default. */
function helpText(): string {
  const lines = REFERENCE_FLAGS.map((f) => {
    const left = `      --${f.name}${f.type === 'bool' ? '' : ` ${f.type}`}`;
    const shown = f.default === null || f.default === '' ? '' : ` (default ${f.default})`;
    return `${left.padEnd(60)}${shown.trim()}`.trimEnd();
  });
  return `The Kubernetes API server validates and configures data
for the api objects which include pods, services, replicationcontrollers, and
others. The API Server services REST operations and provides the frontend to the
cluster's shared state through which all other components interact.
(capstan: the flags below are accepted; those capstan does not implement are named at start.)

Usage:
  kube-apiserver [flags]

Flags:
${lines.join('\n')}
`;
}

/** Whether the etcd at `url` is capstan's stand-in (it answers STAND_IN_PATH). */
async function isStandIn(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL(STAND_IN_PATH, url), { signal: AbortSignal.timeout(2000) });
    if (res.status !== 200) return false;
    const body = (await res.json()) as { standIn?: unknown };
    return body.standIn === 'capstan';
  } catch {
    return false;
  }
}

/** The options the reference's command line amounts to here, and what to say about it. */
async function translate(commandLine: CommandLine): Promise<{ notes: string[]; temporaryDataDir: boolean }> {
  const { options, handled } = commandLine;
  const notes = commandLine.unimplemented.map((name) => `flag --${name} is accepted but not implemented by capstan: it has no effect`);
  const etcd = (handled.get('etcd-servers') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (etcd.length > 0) {
    const standIn = (await Promise.all(etcd.map(isStandIn))).some(Boolean);
    if (!standIn) throw new Error(`--etcd-servers ${etcd.join(',')}: not capstan's etcd stand-in, and capstan does not yet store in a real etcd`);
  }
  // The store: memory unless the command line asks for capstan's database (--storage=sqlite --data-dir).
  if (!commandLine.given.has('storage')) options.storage = 'memory';
  let temporaryDataDir = false;
  if (!commandLine.given.has('data-dir')) {
    options.dataDir = mkdtempSync(join(tmpdir(), 'capstan-kube-apiserver-'));
    temporaryDataDir = true;
  } else {
    options.dataDir = resolve(options.dataDir);
  }
  // The reference's --cert-dir: apiserver.crt and apiserver.key there serve when present (envtest
  // writes them, signed by its own CA); capstan keeps its own CA and admin certificate elsewhere.
  if (options.certDir && !options.tlsCertFile) {
    const cert = join(options.certDir, 'apiserver.crt');
    const key = join(options.certDir, 'apiserver.key');
    if (existsSync(cert) && existsSync(key) && !existsSync(join(options.certDir, 'ca.key'))) {
      options.tlsCertFile = cert;
      options.tlsPrivateKeyFile = key;
      options.certDir = join(options.dataDir, 'pki');
    }
  }
  const privileged = handled.get('allow-privileged');
  if (privileged !== 'true') notes.push(`--allow-privileged=${privileged ?? 'false'} is not enforced: capstan admits privileged containers (as --allow-privileged=true)`);
  const insecurePort = handled.get('insecure-port');
  if (insecurePort !== undefined && insecurePort !== '0') throw new Error(`--insecure-port ${insecurePort}: the insecure port was removed in 1.24; only --insecure-port=0 is accepted`);
  return { notes, temporaryDataDir };
}

async function main(): Promise<void> {
  const started = performance.now();
  let commandLine;
  try {
    commandLine = parseOptions(process.argv.slice(2), KUBE_APISERVER_DIALECT);
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (commandLine.help) {
    process.stdout.write(helpText());
    return;
  }
  if (commandLine.version) {
    process.stdout.write(`Kubernetes ${versionInfo().gitVersion}\n`);
    return;
  }
  const { notes, temporaryDataDir } = await translate(commandLine);
  for (const note of notes) process.stderr.write(`kube-apiserver (capstan): ${note}\n`);
  await serve(commandLine.options, { command: 'kube-apiserver (capstan)', started, temporaryDataDir });
}

main().catch((err: unknown) => {
  process.stderr.write(`kube-apiserver (capstan): ${oneLine(err)}\n`);
  process.exit(1);
});
