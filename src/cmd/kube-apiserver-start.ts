// kube-apiserver's command line read as capstan's options: every flag kube-apiserver 1.25 accepts
// is accepted; those capstan has work as the capstan command's; the few it reads differently are
// translated here; the rest are named once as having no effect. Used by the launcher when it runs
// the server itself and by the shared host (host.ts) that runs it for the launcher.
import { WORKLOAD_CONTROLLERS } from '../controllers/kit/selection.js';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Options } from '../server/options.js';
import { sharedServingMaterial } from '../server/shared-pki.js';
import { STAND_IN_PATH } from './etcd-stand-in.js';
import { REFERENCE_FLAGS } from './kube-apiserver-flags.js';
import { parseOptions, type CommandLine, type Dialect } from './options.js';

export const COMMAND = 'kube-apiserver (capstan)';

/** The reference's flags read here rather than by the capstan command's table. */
const HANDLED = ['allow-privileged', 'insecure-port', 'insecure-bind-address'] as const;

export const KUBE_APISERVER_DIALECT: Dialect = {
  flags: new Map([
    ...REFERENCE_FLAGS.map((f) => [f.name, f.type === 'bool' ? 'bool' : 'value'] as const),
    // Removed in 1.24, still passed by older scripts (envtest passes it only when --help lists it).
    ['insecure-port', 'value'],
    ['insecure-bind-address', 'value'],
  ]),
  handled: HANDLED,
};

/** The options naming files, made absolute against the caller's working folder (the host runs in its own). */
const PATH_OPTIONS = ['certDir', 'tlsCertFile', 'tlsPrivateKeyFile', 'clientCaFile', 'tokenAuthFile', 'serviceAccountSigningKeyFile', 'dataDir', 'auditPolicyFile', 'auditWebhookConfigFile',
  'requestheaderClientCaFile', 'proxyClientCertFile', 'proxyClientKeyFile'] as const;

function absolute(options: Options, cwd: string): void {
  for (const key of PATH_OPTIONS) {
    const value = options[key];
    if (typeof value === 'string' && !isAbsolute(value)) options[key] = resolve(cwd, value);
  }
  options.serviceAccountKeyFiles = options.serviceAccountKeyFiles.map((f) => resolve(cwd, f));
  // "-" is standard output.
  if (options.auditLogPath && options.auditLogPath !== '-') options.auditLogPath = resolve(cwd, options.auditLogPath);
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

export interface Prepared {
  options: Options;
  /** What the start says about flags without effect. */
  notes: string[];
  temporaryDataDir: boolean;
}

/** Reads argv (throws OptionsError, or Error for what cannot be honoured) into the server's options. */
export async function prepareKubeApiserver(argv: string[], cwd: string): Promise<Prepared> {
  const commandLine: CommandLine = parseOptions(argv, KUBE_APISERVER_DIALECT);
  const { options, handled } = commandLine;
  absolute(options, cwd);
  const notes = commandLine.unimplemented.map((name) => `flag --${name} is accepted but not implemented by capstan: it has no effect`);
  const insecurePort = handled.get('insecure-port');
  if (insecurePort !== undefined && insecurePort !== '0') throw new Error(`--insecure-port ${insecurePort}: the insecure port was removed in 1.24; only --insecure-port=0 is accepted`);
  // The store: a real etcd named by --etcd-servers; memory when they name capstan's stand-in (the
  // test environments' etcd) or nothing, unless the command line asks for capstan's database
  // (--storage=sqlite --data-dir).
  const standIn = options.etcdServers.length > 0 && (await Promise.all(options.etcdServers.map(isStandIn))).some(Boolean);
  if (standIn) options.etcdServers = [];
  // envtest starts kube-apiserver without a controller manager: nothing makes pods of Deployments there.
  if (!commandLine.given.has('controllers')) options.controllers = ['*', ...WORKLOAD_CONTROLLERS.map((name) => `-${name}`)];
  // kube-apiserver elects nothing (no kube-controller-manager Lease appears in a test environment).
  if (!commandLine.given.has('leader-elect')) options.leaderElect = false;
  if (!commandLine.given.has('storage')) options.storage = options.etcdServers.length > 0 ? 'etcd' : 'memory';
  let temporaryDataDir = false;
  if (!commandLine.given.has('data-dir')) {
    options.dataDir = mkdtempSync(join(tmpdir(), 'capstan-kube-apiserver-'));
    temporaryDataDir = true;
  }
  // The reference's --cert-dir: apiserver.crt and apiserver.key there serve when present (envtest
  // writes them, signed by its own CA); capstan keeps its own CA and admin certificate elsewhere.
  if (options.certDir && !options.tlsCertFile) {
    const cert = join(options.certDir, 'apiserver.crt');
    const key = join(options.certDir, 'apiserver.key');
    if (existsSync(cert) && existsSync(key) && !existsSync(join(options.certDir, 'ca.key'))) {
      options.tlsCertFile = cert;
      options.tlsPrivateKeyFile = key;
      // Its CA and admin certificate serve only the kubeconfig in the data folder: the ones this
      // user's test servers share do, made once rather than at every start.
      options.servingMaterial = await sharedServingMaterial();
    }
  }
  // Without a certificate of its own, a server in a temporary folder uses this user's shared test
  // material rather than making a CA at every start.
  if (temporaryDataDir && !options.certDir && !options.tlsCertFile) options.servingMaterial = await sharedServingMaterial();
  const privileged = handled.get('allow-privileged');
  if (privileged !== 'true') notes.push(`--allow-privileged=${privileged ?? 'false'} is not enforced: capstan admits privileged containers (as --allow-privileged=true)`);
  return { options, notes, temporaryDataDir };
}
