// startCapstan: a server for a test, started from Node. By default in the shared host of this
// user's test servers (host/: one process that runs them all, so that a start costs what a server
// costs, tens of milliseconds, even in a test process that has loaded nothing yet; a server whose
// test process ends without stopping it is stopped all the same); or in this process (`process:
// 'same'`: the servers share the loaded code and one set of TLS material); or in a child process
// of its own (`process: 'child'`: isolated, as a test of a crash or of memory wants). Each has its
// own port and store, comes with an admin kubeconfig in the three forms clients take, and resets
// to its first state between tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseYaml } from '../encoding/yaml-decode.js';
import type { ServingMaterial } from '../server/certs.js';
import { sharedServingMaterial } from '../server/shared-pki.js';
import { adminKubeconfig } from '../server/kubeconfig.js';
import { FIRST_STATE_PATH, RESET_PATH } from '../server/routes.js';
import { startHosted } from '../host/client.js';
import { ApiClient } from './client.js';
import { installCrds, readManifests, seedObjects } from './install.js';

export interface StartOptions {
  /** 'memory' (the default) or a folder for capstan's database file (kept after stop). */
  store?: 'memory' | { dataDir: string };
  /** 'host' (the default): the shared host; 'same': this process; 'child': a process of its own. */
  process?: 'host' | 'same' | 'child';
  /** 'RBAC' (the default) or 'AlwaysAllow'; the kubeconfig's user is in system:masters either way. */
  authorizationMode?: 'RBAC' | 'AlwaysAllow';
  enableAdmissionPlugins?: string[];
  disableAdmissionPlugins?: string[];
  /** CustomResourceDefinition files or folders (YAML, several documents each, or JSON) installed before start resolves, each Established. */
  crds?: string[];
  /** Objects created (in order, as the admin) after the CRDs: objects, or files or folders of manifests. */
  objects?: Array<Record<string, unknown> | string>;
  /** klog-style verbosity of the server's log (0: starts and errors only). */
  verbosity?: number;
}

/** A kubeconfig as its YAML says it (the fields capstan writes). */
export interface KubeconfigObject {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ name: string; user: { 'client-certificate-data': string; 'client-key-data': string } }>;
  contexts: Array<{ name: string; context: { cluster: string; user: string; namespace: string } }>;
  'current-context': string;
}

/** What @kubernetes/client-node's KubeConfig.loadFromOptions takes. */
export interface ClientNodeOptions {
  clusters: Array<{ name: string; server: string; caData: string; skipTLSVerify: boolean }>;
  users: Array<{ name: string; certData: string; keyData: string }>;
  contexts: Array<{ name: string; cluster: string; user: string; namespace: string }>;
  currentContext: string;
}

export interface Capstan {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  kubeconfig: { object: KubeconfigObject; yaml: string; path: string };
  /** `new KubeConfig().loadFromOptions(capstan.clientNode)` */
  clientNode: ClientNodeOptions;
  /** The process serving it (the host's, this one, or the child's). */
  pid: number;
  /** Back to the state start resolved with (CRDs and objects given to start included). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

let sharedMaterial: Promise<ServingMaterial> | undefined;

/** One CA, serving and admin certificate for every server of this process (and of this user's other test processes). */
function material(): Promise<ServingMaterial> {
  sharedMaterial ??= sharedServingMaterial();
  return sharedMaterial;
}

interface Serving {
  url: string;
  port: number;
  yaml: string;
  pid: number;
  /** Where the kubeconfig file goes (a private folder of this server's). */
  folder: string;
  reset(client: ApiClient): Promise<void>;
  rememberFirstState(client: ApiClient): Promise<void>;
  stop(): Promise<void>;
}

async function inProcess(options: StartOptions): Promise<Serving> {
  const { startServer } = await import('../server/server.js');
  const folder = mkdtempSync(join(tmpdir(), 'capstan-'));
  const store = options.store ?? 'memory';
  const server = await startServer({
    port: 0,
    storage: store === 'memory' ? 'memory' : 'sqlite',
    dataDir: store === 'memory' ? folder : store.dataDir,
    servingMaterial: await material(),
    ...(options.authorizationMode ? { authorizationMode: options.authorizationMode } : {}),
    enableAdmissionPlugins: options.enableAdmissionPlugins ?? [],
    disableAdmissionPlugins: options.disableAdmissionPlugins ?? [],
    verbosity: options.verbosity ?? 0,
  });
  return {
    url: server.url,
    port: server.port,
    yaml: adminKubeconfig(server.url, server.material),
    pid: process.pid,
    folder,
    reset: async () => {
      await server.reset();
    },
    rememberFirstState: () => server.rememberFirstState(),
    stop: async () => {
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const COMMAND = fileURLToPath(new URL('../cmd/capstan.js', import.meta.url));

/** The capstan command line the options amount to (the data folder aside). */
function commandLine(options: StartOptions): string[] {
  const store = options.store ?? 'memory';
  return [
    '--secure-port=0', `--storage=${store === 'memory' ? 'memory' : 'sqlite'}`,
    ...(store === 'memory' ? [] : [`--data-dir=${store.dataDir}`]),
    ...(options.authorizationMode ? [`--authorization-mode=${options.authorizationMode}`] : []),
    ...(options.enableAdmissionPlugins?.length ? [`--enable-admission-plugins=${options.enableAdmissionPlugins.join(',')}`] : []),
    ...(options.disableAdmissionPlugins?.length ? [`--disable-admission-plugins=${options.disableAdmissionPlugins.join(',')}`] : []),
    `--v=${options.verbosity ?? 0}`,
  ];
}

/** A server in another process is reset, and told its first state, over HTTP as the admin. */
const OVER_HTTP: Pick<Serving, 'reset' | 'rememberFirstState'> = {
  reset: async (client) => {
    await client.request('POST', RESET_PATH);
  },
  rememberFirstState: async (client) => {
    await client.request('POST', FIRST_STATE_PATH);
  },
};

async function inHost(options: StartOptions): Promise<Serving> {
  const server = await startHosted('capstan', commandLine(options), (line, warning) => {
    if (warning) process.stderr.write(`${line}\n`);
  });
  const folder = mkdtempSync(join(tmpdir(), 'capstan-'));
  return {
    url: server.url,
    port: Number(new URL(server.url).port),
    yaml: readFileSync(server.kubeconfigPath, 'utf8'),
    pid: server.pid,
    folder,
    ...OVER_HTTP,
    stop: async () => {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function childProcess(options: StartOptions): Promise<Serving> {
  const folder = mkdtempSync(join(tmpdir(), 'capstan-'));
  const args = [COMMAND, ...commandLine(options), ...((options.store ?? 'memory') === 'memory' ? [`--data-dir=${folder}`] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const started = await new Promise<{ url: string; kubeconfigPath: string }>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /serving on (\S+) .*\nkubeconfig: (.+)\n/.exec(output);
      if (m) resolve({ url: m[1]!, kubeconfigPath: m[2]! });
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`capstan exited (${code}) before it served: ${output.trim()}`)));
  });
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: started.url,
    port: Number(new URL(started.url).port),
    yaml: readFileSync(started.kubeconfigPath, 'utf8'),
    pid: child.pid!,
    folder,
    ...OVER_HTTP,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Starts a server; resolves once it serves, with the CRDs Established and the objects made. */
export async function startCapstan(options: StartOptions = {}): Promise<Capstan> {
  // Files are read first: a wrong path fails before anything starts.
  const crds = (options.crds ?? []).flatMap(readManifests);
  const objects = (options.objects ?? []).flatMap((o) => (typeof o === 'string' ? readManifests(o) : [o]));
  const serving = options.process === 'child' ? await childProcess(options) : options.process === 'same' ? await inProcess(options) : await inHost(options);
  const object = parseYaml(serving.yaml) as KubeconfigObject;
  const path = join(serving.folder, 'kubeconfig');
  writeFileSync(path, serving.yaml, { mode: 0o600 });
  const cluster = object.clusters[0]!;
  const user = object.users[0]!;
  const client = new ApiClient(serving.url, {
    ca: Buffer.from(cluster.cluster['certificate-authority-data'], 'base64').toString(),
    cert: Buffer.from(user.user['client-certificate-data'], 'base64').toString(),
    key: Buffer.from(user.user['client-key-data'], 'base64').toString(),
  });
  try {
    await installCrds(client, crds);
    await seedObjects(client, objects);
    if (crds.length > 0 || objects.length > 0) await serving.rememberFirstState(client);
  } catch (err) {
    client.close();
    await serving.stop();
    throw err;
  }
  let stopped = false;
  return {
    url: serving.url,
    port: serving.port,
    kubeconfig: { object, yaml: serving.yaml, path },
    clientNode: {
      clusters: [{ name: cluster.name, server: cluster.cluster.server, caData: cluster.cluster['certificate-authority-data'], skipTLSVerify: false }],
      users: [{ name: user.name, certData: user.user['client-certificate-data'], keyData: user.user['client-key-data'] }],
      contexts: object.contexts.map((c) => ({ name: c.name, ...c.context })),
      currentContext: object['current-context'],
    },
    pid: serving.pid,
    reset: () => serving.reset(client),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      client.close();
      await serving.stop();
    },
  };
}
