// Command-line flags → one Options object. Names follow kube-apiserver's where it has one.
import { parseArgs } from 'node:util';
import { ServiceAllocators } from '../registry/allocators/service-allocation.js';

export interface Options {
  bindAddress: string;
  securePort: number;
  dataDir: string;
  storage: 'sqlite' | 'memory';
  /** Milliseconds of change history kept for watches and continue tokens. */
  watchHistoryWindowMs: number;
  /** Plain HTTP without authentication of credential-less requests (tests only). */
  insecureServing: boolean;
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  clientCaFile?: string;
  tokenAuthFile?: string;
  anonymousAuth: boolean;
  authorizationMode: 'RBAC' | 'AlwaysAllow';
  advertiseAddress?: string;
  /** Admission plugins turned on beyond the defaults, and off. */
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** CIDR(s) Service cluster IPs come from: one, or an IPv4 and an IPv6 one separated by a comma. */
  serviceClusterIpRange: string;
  /** NodePorts come from this range ("30000-32767"). */
  serviceNodePortRange: string;
  help: boolean;
}

/** Go-style durations as kube-apiserver flags take them: "5m", "90s", "1h30m", "250ms". */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
  let total = 0;
  let at = 0;
  if (!text) return undefined;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * units[m[2]!]!;
    at = re.lastIndex;
  }
  return total;
}

export const HELP = `capstan — the Kubernetes API server (kube-apiserver 1.25's REST interface) in TypeScript

Usage: capstan [flags]

Flags:
  --bind-address string   address to listen on (default "127.0.0.1")
  --secure-port int       port to listen on; 0 picks a free one (default 6443)
  --data-dir string       folder for the database file and the admin kubeconfig (default "./.capstan")
  --storage string        "sqlite" (a database file in --data-dir) or "memory" (default "sqlite")
  --watch-history-window duration
                          how long changes stay available to watches, exact lists and continue
                          tokens; older versions answer 410 Gone (default 5m0s)
  --cert-dir string       where the CA, serving and admin certificates are kept; created on first
                          start when no certificate is given (default "<data-dir>/pki")
  --tls-cert-file string, --tls-private-key-file string
                          serve with this certificate and key instead
  --client-ca-file string trust client certificates signed by this CA (as well as capstan's own)
  --token-auth-file string
                          static bearer tokens, one "token,user,uid,\"group1,group2\"" line each
  --anonymous-auth        serve requests without credentials as system:anonymous (default true)
  --authorization-mode string
                          "RBAC" or "AlwaysAllow" (default "RBAC"); system:masters is always allowed
  --advertise-address string
                          the address clients are told to use (added to the serving certificate)
  --enable-admission-plugins strings, --disable-admission-plugins strings
                          admission plugins (comma-separated) to turn on beyond the defaults, or off
  --service-cluster-ip-range string
                          CIDR(s) Service cluster IPs are allocated from; one, or an IPv4 and an
                          IPv6 one for dual-stack (default "10.96.0.0/12")
  --service-node-port-range string
                          ports NodePort services are allocated from (default "30000-32767")
  --insecure-serving      plain HTTP, where requests without credentials act as an administrator:
                          for tests on loopback only, never for a reachable server
  -h, --help              print this help
`;

export class OptionsError extends Error {}

/** A comma-separated flag value as a list (empty entries dropped). */
function list(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}

export function parseOptions(argv: string[]): Options {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        'bind-address': { type: 'string', default: '127.0.0.1' },
        'secure-port': { type: 'string', default: '6443' },
        'data-dir': { type: 'string', default: './.capstan' },
        storage: { type: 'string', default: 'sqlite' },
        'watch-history-window': { type: 'string', default: '5m' },
        'insecure-serving': { type: 'boolean', default: false },
        'cert-dir': { type: 'string' },
        'tls-cert-file': { type: 'string' },
        'tls-private-key-file': { type: 'string' },
        'client-ca-file': { type: 'string' },
        'token-auth-file': { type: 'string' },
        'anonymous-auth': { type: 'string', default: 'true' },
        'authorization-mode': { type: 'string', default: 'RBAC' },
        'advertise-address': { type: 'string' },
        'enable-admission-plugins': { type: 'string', default: '' },
        'disable-admission-plugins': { type: 'string', default: '' },
        'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
        'service-node-port-range': { type: 'string', default: '30000-32767' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
  const v = parsed.values;
  const port = Number(v['secure-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError(`--secure-port: invalid port "${v['secure-port']}"`);
  const storage = v.storage;
  if (storage !== 'sqlite' && storage !== 'memory') throw new OptionsError(`--storage: must be "sqlite" or "memory", not "${storage}"`);
  const window = parseDuration(v['watch-history-window']!);
  if (window === undefined || window <= 0) throw new OptionsError(`--watch-history-window: invalid duration "${v['watch-history-window']}"`);
  const mode = v['authorization-mode'];
  if (mode !== 'RBAC' && mode !== 'AlwaysAllow') throw new OptionsError(`--authorization-mode: must be "RBAC" or "AlwaysAllow", not "${mode}"`);
  const anonymous = v['anonymous-auth'];
  if (anonymous !== 'true' && anonymous !== 'false') throw new OptionsError(`--anonymous-auth: must be true or false, not "${anonymous}"`);
  if (v['insecure-serving'] && v['bind-address'] !== '127.0.0.1' && v['bind-address'] !== '::1' && v['bind-address'] !== 'localhost') {
    throw new OptionsError('--insecure-serving: only on a loopback --bind-address');
  }
  if (Boolean(v['tls-cert-file']) !== Boolean(v['tls-private-key-file'])) throw new OptionsError('--tls-cert-file and --tls-private-key-file go together');
  try {
    ServiceAllocators.fromFlags(v['service-cluster-ip-range'], v['service-node-port-range']);
  } catch (err) {
    throw new OptionsError((err as Error).message);
  }
  return {
    bindAddress: v['bind-address']!, securePort: port, dataDir: v['data-dir']!, storage, watchHistoryWindowMs: window,
    insecureServing: v['insecure-serving'] ?? false,
    certDir: v['cert-dir'], tlsCertFile: v['tls-cert-file'], tlsPrivateKeyFile: v['tls-private-key-file'], clientCaFile: v['client-ca-file'],
    tokenAuthFile: v['token-auth-file'], anonymousAuth: anonymous === 'true', authorizationMode: mode, advertiseAddress: v['advertise-address'],
    enableAdmissionPlugins: list(v['enable-admission-plugins']!), disableAdmissionPlugins: list(v['disable-admission-plugins']!),
    serviceClusterIpRange: v['service-cluster-ip-range']!, serviceNodePortRange: v['service-node-port-range']!,
    help: v.help ?? false,
  };
}
