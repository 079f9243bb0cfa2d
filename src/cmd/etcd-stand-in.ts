// `etcd` for test environments (controller-runtime's envtest starts one before kube-apiserver):
// a stand-in that answers etcd's health and version probes on its client URLs and tells the
// capstan `kube-apiserver` that points at it to keep its store itself. It stores nothing: it loads
// no more than node:http, so that it is up in a few milliseconds.
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';

/** The path a capstan kube-apiserver asks to know it was pointed at a stand-in (a real etcd answers 404). */
export const STAND_IN_PATH = '/capstan/etcd-stand-in';

/** What envtest and etcdctl-style probes read: etcd 3.5's answers. */
export const ETCD_VERSION = { etcdserver: '3.5.4', etcdcluster: '3.5.0' };
const HEALTH = { health: 'true', reason: '' };

/** The flags `etcd --help` lists, so that callers probing for one (envtest asks for --unsafe-no-fsync) find it. */
const HELP_FLAGS: Array<[string, string]> = [
  ['name', 'Human-readable name for this member.'],
  ['data-dir', 'Path to the data directory.'],
  ['listen-peer-urls', 'List of URLs to listen on for peer traffic (accepted; a stand-in has no peers).'],
  ['listen-client-urls', 'List of URLs to listen on for client traffic.'],
  ['advertise-client-urls', 'List of this member\'s client URLs to advertise to the public.'],
  ['initial-advertise-peer-urls', 'List of this member\'s peer URLs to advertise to the rest of the cluster (accepted).'],
  ['initial-cluster', 'Initial cluster configuration for bootstrapping (accepted).'],
  ['unsafe-no-fsync', 'Disables fsync, unsafe, will cause data loss (accepted; a stand-in writes nothing).'],
  ['quota-backend-bytes', 'Raise alarms when backend size exceeds the given quota (accepted).'],
  ['log-level', 'Configures log level (accepted).'],
];

export interface StandInOptions {
  clientUrls: URL[];
  dataDir?: string;
}

export class EtcdFlagError extends Error {}

/** Reads etcd's command line: `--flag=value` and `--flag value`, flags only. */
export function parseEtcdArgs(argv: string[]): StandInOptions & { help: boolean; version: boolean } {
  const { tokens } = parseArgs({ args: argv, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<string, string>();
  let help = false;
  let version = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'positional') throw new EtcdFlagError(`'${token.value}' is not a valid flag`);
    if (token.kind !== 'option') continue;
    if (token.name === 'help' || token.name === 'h') help = true;
    else if (token.name === 'version') version = true;
    let value = token.value;
    // "--data-dir /x": parseArgs (strict: false) reads the value as a positional.
    const next = tokens[i + 1];
    if (value === undefined && next?.kind === 'positional') {
      value = next.value;
      i++;
    }
    values.set(token.name, value ?? 'true');
  }
  const listen = values.get('listen-client-urls') ?? values.get('advertise-client-urls') ?? 'http://localhost:2379';
  const clientUrls = listen.split(',').map((u) => u.trim()).filter(Boolean).map((u) => {
    if (!URL.canParse(u)) throw new EtcdFlagError(`--listen-client-urls: "${u}" is not a URL`);
    const url = new URL(u);
    if (url.protocol !== 'http:') throw new EtcdFlagError(`--listen-client-urls: ${u}: the stand-in serves http only`);
    return url;
  });
  const dataDir = values.get('data-dir');
  return { clientUrls, ...(dataDir ? { dataDir } : {}), help, version };
}

/** What `etcd --help` prints. */
export function etcdHelp(): string {
  const lines = HELP_FLAGS.map(([name, help]) => `  --${name}\n      ${help}`);
  return `Usage:\n\n  etcd [flags]\n    Start an etcd server (capstan's stand-in: kube-apiserver keeps the data).\n\nMember:\n${lines.join('\n')}\n`;
}

/** Serves the stand-in on each client URL; resolves once all listen. */
export async function startStandIn(options: StandInOptions): Promise<Server[]> {
  const identity = JSON.stringify({ standIn: 'capstan', ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const servers = options.clientUrls.map(() => createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const body = path === '/health' || path === '/readyz' || path === '/livez' ? JSON.stringify(HEALTH)
      : path === '/version' ? JSON.stringify(ETCD_VERSION)
        : path === STAND_IN_PATH ? identity : undefined;
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }));
  await Promise.all(servers.map((server, i) => new Promise<void>((resolve, reject) => {
    const url = options.clientUrls[i]!;
    server.once('error', reject);
    server.listen(Number(url.port || 2379), url.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  })));
  return servers;
}
