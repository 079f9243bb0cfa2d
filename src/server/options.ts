// The server's options: one table of every setting with its default and, where the command line
// sets it, its flag (named as kube-apiserver's), help text and parser. The `Options` type is
// read off the table, so a new flag is one entry here.
import { parseEtcdServersOverride, type EtcdServersOverride } from './etcd-overrides.js';
import { parseControllers } from '../controllers/kit/selection.js';
import { FeatureGates, featureGateHelpLines } from '../api/feature-gates.js';
import { runtimeConfig } from '../api/runtime-config.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE } from '../registry/allocators/service-allocation.js';
import type { ServingMaterial } from './certs.js';
import { checkCipherSuites, checkTlsVersion, TLS_VERSION_NAMES } from './tls-options.js';

/** A flag value that cannot be used; the message names the flag. */
export class OptionsError extends Error {}

interface Flag<T> {
  /** As kube-apiserver spells it, without the leading dashes. */
  readonly name: string;
  /** A one-letter alias (-v for --v). */
  readonly short?: string;
  /** What it takes, as --help shows it; 'bool' takes true or false; none for a switch (present or not). */
  readonly takes?: 'string' | 'int' | 'duration' | 'strings' | 'bool';
  readonly help: string;
  /** The default as --help words it, where the value does not say it itself. */
  readonly shownDefault?: string;
  /** Reads the flag's text (a switch's is "true"); throws OptionsError. */
  readonly parse: (text: string) => T;
}

interface Setting<T> {
  readonly default: T;
  /** Absent for settings only tests and embedders give (startServer's callers). */
  readonly flag?: Flag<T>;
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

/** Milliseconds as Go prints a duration: "5m0s", "1h0m0s", "1m30s", "250ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

const text = (name: string, value: string, help: string): Setting<string> =>
  ({ default: value, flag: { name, takes: 'string', help, parse: (t) => t } });

const optionalText = (name: string, help: string, shownDefault?: string): Setting<string | undefined> =>
  ({ default: undefined, flag: { name, takes: 'string', help, shownDefault, parse: (t) => t } });

function oneOf<T extends string>(name: string, values: readonly T[], value: T, help: string): Setting<T> {
  const parse = (t: string): T => {
    if ((values as readonly string[]).includes(t)) return t as T;
    throw new OptionsError(`--${name}: must be ${values.map((v) => `"${v}"`).join(' or ')}, not "${t}"`);
  };
  return { default: value, flag: { name, takes: 'string', help, parse } };
}

function port(name: string, value: number, help: string): Setting<number> {
  const parse = (t: string): number => {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new OptionsError(`--${name}: invalid port "${t}"`);
    return n;
  };
  return { default: value, flag: { name, takes: 'int', help, parse } };
}

/** A duration flag; the option holds milliseconds. */
/** A Go duration (ms); `allowZero` for flags where 0 means none. */
function duration(name: string, value: string, help: string, allowZero = false): Setting<number> {
  const parse = (t: string): number => {
    const ms = parseDuration(t);
    if (ms === undefined || ms < 0 || (ms === 0 && !allowZero)) throw new OptionsError(`--${name}: invalid duration "${t}"`);
    return ms;
  };
  return { default: parse(value), flag: { name, takes: 'duration', help, parse } };
}

function boolean(name: string, value: boolean, help: string): Setting<boolean> {
  const parse = (t: string): boolean => {
    if (t !== 'true' && t !== 'false') throw new OptionsError(`--${name}: must be true or false, not "${t}"`);
    return t === 'true';
  };
  return { default: value, flag: { name, takes: 'bool', help, parse } };
}

/** A bool flag whose default is decided later from other settings (shown as `shownDefault`). */
function optionalBoolean(name: string, help: string, shownDefault: string): Setting<boolean | undefined> {
  const parse = (t: string): boolean => {
    if (t !== 'true' && t !== 'false') throw new OptionsError(`--${name}: must be true or false, not "${t}"`);
    return t === 'true';
  };
  return { default: undefined, flag: { name, takes: 'bool', help, shownDefault, parse } };
}

/** Off unless given: `--name` alone turns it on. */
const toggle = (name: string, help: string): Setting<boolean> => ({ default: false, flag: { name, help, parse: (t) => t === 'true' } });

/** A comma-separated list (empty entries dropped). */
const list = (name: string, help: string): Setting<string[]> =>
  ({ default: [], flag: { name, takes: 'strings', help, parse: (t) => t.split(',').map((s) => s.trim()).filter(Boolean) } });

/** A flag whose text `check` reads, or refuses with the message it throws (the reference's, after the flag's name). */
function checked<T>(name: string, takes: 'string' | 'strings', value: T, help: string, check: (text: string) => T): Setting<T> {
  const parse = (t: string): T => {
    try {
      return check(t);
    } catch (err) {
      throw new OptionsError(`--${name}: ${(err as Error).message}`);
    }
  };
  return { default: value, flag: { name, takes, help, parse } };
}

/** A log level (klog's -v). */
function level(name: string, short: string, help: string): Setting<number> {
  const parse = (t: string): number => {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 0) throw new OptionsError(`--${name}: invalid log level "${t}"`);
    return n;
  };
  return { default: 0, flag: { name, short, takes: 'int', help, parse } };
}

/** An absolute URL (or, as the reference allows, any string without a colon). */
function issuerUrl(name: string, value: string, help: string): Setting<string> {
  const parse = (t: string): string => {
    if (!t) throw new OptionsError(`--${name}: must not be empty`);
    if (t.includes(':') && !URL.canParse(t)) throw new OptionsError(`--${name}: "${t}" contained a ':' but was not a valid URL`);
    return t;
  };
  return { default: value, flag: { name, takes: 'string', help, parse } };
}

/** An https URL. */
function httpsUrl(name: string, help: string, shownDefault: string): Setting<string | undefined> {
  const parse = (t: string): string => {
    if (!URL.canParse(t)) throw new OptionsError(`--${name}: must be a valid URL, not "${t}"`);
    if (new URL(t).protocol !== 'https:') throw new OptionsError(`--${name}: requires the https scheme, not "${t}"`);
    return t;
  };
  return { default: undefined, flag: { name, takes: 'string', help, shownDefault, parse } };
}

/** The reference's --authorization-mode list, read as the one mode it amounts to here. */
function authorizationModes(name: string, value: 'RBAC' | 'AlwaysAllow', help: string): Setting<'RBAC' | 'AlwaysAllow'> {
  const known = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];
  const parse = (t: string): 'RBAC' | 'AlwaysAllow' => {
    const modes = t.split(',').map((m) => m.trim()).filter(Boolean);
    const unknown = modes.find((m) => !known.includes(m));
    if (unknown !== undefined) throw new OptionsError(`--${name}: authorization-mode "${unknown}" is not a valid mode`);
    const unsupported = modes.find((m) => m !== 'RBAC' && m !== 'AlwaysAllow' && m !== 'Node');
    if (unsupported !== undefined) throw new OptionsError(`--${name}: capstan does not implement the ${unsupported} authorizer (RBAC, AlwaysAllow and Node beside RBAC are served)`);
    if (modes.length === 0 || (!modes.includes('RBAC') && !modes.includes('AlwaysAllow'))) throw new OptionsError(`--${name}: must include RBAC or AlwaysAllow, not "${t}"`);
    // Authorizers only allow: the list allows all when AlwaysAllow is in it, whatever its place.
    return modes.includes('AlwaysAllow') ? 'AlwaysAllow' : 'RBAC';
  };
  return { default: value, flag: { name, takes: 'strings', help, parse } };
}

/** A whole number of at least `min`; `refusal` words a smaller one (the reference's message). */
function integer(name: string, value: number, min: number, help: string, refusal: (n: number) => string): Setting<number> {
  const parse = (t: string): number => {
    const n = Number(t);
    if (!/^[-+]?\d+$/.test(t.trim()) || !Number.isSafeInteger(n)) throw new OptionsError(`invalid argument "${t}" for "--${name}" flag: strconv.ParseInt: parsing "${t}": invalid syntax`);
    if (n < min) throw new OptionsError(refusal(n));
    return n;
  };
  return { default: value, flag: { name, takes: 'int', help, parse } };
}

/** A whole number of at least 0 (default `value`, 0 unless given). */
const notNegative = (name: string, help: string, value = 0): Setting<number> => integer(name, value, 0, help, (n) => `--${name} ${n} can't be a negative number`);

/** A number above 0. */
function positiveNumber(name: string, value: number, help: string, refusal: (n: number) => string): Setting<number> {
  const parse = (t: string): number => {
    const n = Number(t);
    if (t.trim() === '' || !Number.isFinite(n)) throw new OptionsError(`invalid argument "${t}" for "--${name}" flag: strconv.ParseFloat: parsing "${t}": invalid syntax`);
    if (n <= 0) throw new OptionsError(refusal(n));
    return n;
  };
  return { default: value, flag: { name, takes: 'string', help, parse } };
}

/** A setting with no flag. */
const unflagged = <T>(value: T): Setting<T> => ({ default: value });

/** Every setting, in --help's order. */
export const SETTINGS = {
  bindAddress: text('bind-address', '127.0.0.1', 'address to listen on'),
  /** 0 picks a free port. */
  port: port('secure-port', 6443, 'port to listen on; 0 picks a free one'),
  /** Folder of the database file (sqlite) and the admin kubeconfig. */
  dataDir: text('data-dir', './.capstan', 'folder for the database file and the admin kubeconfig'),
  storage: oneOf('storage', ['sqlite', 'memory', 'etcd'], 'sqlite', '"sqlite" (a database file in --data-dir), "memory", or "etcd" (--etcd-servers; the default when they are given)'),
  /** etcd members' client URLs (http:// or https://), for --storage etcd. */
  etcdServers: list('etcd-servers', 'etcd members\' client URLs (comma-separated), used in turn; storage goes to etcd when given'),
  etcdCafile: optionalText('etcd-cafile', 'the CA that signed the etcd members\' certificates (https:// members)'),
  etcdCertfile: optionalText('etcd-certfile', 'client certificate for etcd (with --etcd-keyfile)'),
  etcdKeyfile: optionalText('etcd-keyfile', 'the private key of --etcd-certfile'),
  /** Every key in etcd starts with it. */
  etcdPrefix: text('etcd-prefix', '/registry', 'the prefix of every key capstan keeps in etcd'),
  /** Resources kept in other etcd clusters than --etcd-servers (the reference's group/resource#servers;servers). */
  etcdServersOverrides: checked('etcd-servers-overrides', 'strings', [] as EtcdServersOverride[], 'per-resource etcd servers, comma-separated group/resource#servers with servers separated by ";" (core Events in a second etcd: /events#http://127.0.0.1:4002)',
    (t) => t.split(',').map((s) => s.trim()).filter(Boolean).map(parseEtcdServersOverride)),
  /** How built-in objects are kept in etcd: the reference's Protobuf envelope, or JSON. */
  storageMediaType: oneOf('storage-media-type', ['application/vnd.kubernetes.protobuf', 'application/json'], 'application/vnd.kubernetes.protobuf', 'how built-in objects are kept in etcd (custom resources are always JSON)'),
  /** How often etcd is compacted (ms; 0: never), as the reference: to the revision of one interval before. */
  etcdCompactionIntervalMs: duration('etcd-compaction-interval', '5m0s', 'how often etcd is compacted, to the revision of one interval before (shared by every server on the etcd); 0 turns compaction off', true),
  /** How long Events are kept after their last write (ms); in etcd, with a lease (other stores keep them). */
  eventTtlMs: duration('event-ttl', '1h0m0s', 'how long Events are kept after they were last written (etcd: an etcd lease, as the reference; other stores: deleted by the server)'),
  /** An apiserver.config.k8s.io/v1 EncryptionConfiguration: what etcd keeps encrypted, and with which keys. */
  encryptionProviderConfig: optionalText('encryption-provider-config', 'an EncryptionConfiguration file: the resources kept encrypted in etcd (identity, aescbc, aesgcm, secretbox providers)'),
  /** How long changes stay available to watches, exact lists and continue tokens (ms). */
  /** How long a request that is not long-running may take before its 504 (ms), as the reference's flag. */
  requestTimeoutMs: duration('request-timeout', '1m0s', 'how long a request (not a watch, log, exec, attach, port-forward or proxy) may take before it is answered 504 Timeout; ?timeout= asks for less'),
  /** Read-only requests (get, list) in flight at most; beyond, 429 (system:masters excepted). 0: no limit. */
  maxRequestsInflight: notNegative('max-requests-inflight', 'read-only requests (get, list) served at once at most; beyond, 429 Too Many Requests (system:masters is always served); 0 is no limit. With API Priority and Fairness, this and --max-mutating-requests-inflight add up to the concurrency its priority levels share', 400),
  /** Mutating requests in flight at most; beyond, 429 (system:masters excepted). 0: no limit. */
  maxMutatingRequestsInflight: notNegative('max-mutating-requests-inflight', 'mutating requests served at once at most; beyond, 429 Too Many Requests (system:masters is always served); 0 is no limit', 200),
  /** API Priority and Fairness (with its feature gate) in place of the max-in-flight limits, as the reference's flag. */
  enablePriorityAndFairness: boolean('enable-priority-and-fairness', true, 'if true and the APIPriorityAndFairness feature gate is enabled, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness'),
  /** A watch without timeoutSeconds ends after a random time from this to twice this (s), as the reference's flag. */
  minRequestTimeoutSeconds: notNegative('min-request-timeout', 'seconds: a watch that does not say its timeoutSeconds ends after a random time between this and twice this', 1800),
  /** On SIGTERM, how long /readyz fails before the listener stops (ms), as the reference's flag. */
  shutdownDelayMs: duration('shutdown-delay-duration', '0s', 'on SIGTERM, how long /readyz reports the shutdown before new connections are refused; requests in flight then finish and watches end', true),
  /** From start, how long /livez counts unfinished post-start hooks as healthy (ms), as the reference's flag. */
  livezGracePeriodMs: duration('livez-grace-period', '0s', 'from the start, how long /livez takes post-start hooks that have not finished as healthy (/readyz never does)', true),
  historyWindowMs: duration('watch-history-window', '5m', 'how long changes stay available to watches, exact lists and continue tokens; older versions answer 410 Gone'),
  /** Where the CA, serving and admin certificates live (created on first start). Default <dataDir>/pki. */
  certDir: optionalText('cert-dir', 'where the CA, serving and admin certificates are kept; created on first start when no certificate is given', '"<data-dir>/pki"'),
  tlsCertFile: optionalText('tls-cert-file', 'serve with this certificate (and --tls-private-key-file) instead'),
  tlsPrivateKeyFile: optionalText('tls-private-key-file', 'the private key of --tls-cert-file'),
  clientCaFile: optionalText('client-ca-file', "trust client certificates signed by this CA (as well as capstan's own)"),
  /** The front proxy (the aggregation layer): capstan's identity toward extension API servers, and the request headers it trusts. */
  requestheaderClientCaFile: optionalText('requestheader-client-ca-file', 'the front-proxy CA: client certificates signed by it may say who the user is in the request headers below; capstan makes its own in <cert-dir> when not given'),
  requestheaderAllowedNames: list('requestheader-allowed-names', 'common names a front-proxy client certificate may have (any, when empty)'),
  requestheaderUsernameHeaders: list('requestheader-username-headers', 'request headers that say the user name, first set wins (X-Remote-User when not given)'),
  requestheaderGroupHeaders: list('requestheader-group-headers', 'request headers that say the groups (X-Remote-Group when not given)'),
  requestheaderExtraHeadersPrefix: list('requestheader-extra-headers-prefix', 'prefixes of request headers that say extra user information (X-Remote-Extra- when not given)'),
  proxyClientCertFile: optionalText('proxy-client-cert-file', 'the client certificate capstan calls extension API servers with (signed by --requestheader-client-ca-file)'),
  proxyClientKeyFile: optionalText('proxy-client-key-file', 'the private key of --proxy-client-cert-file'),
  /** Go's name of the lowest TLS version served; none is TLS 1.2. */
  tlsMinVersion: checked<string | undefined>('tls-min-version', 'string', undefined, `minimum TLS version supported: ${TLS_VERSION_NAMES.join(', ')} (TLS 1.2 when not given)`, checkTlsVersion),
  /** Go's names of the TLS 1.2 cipher suites served (TLS 1.3's are always on); none: the defaults. */
  tlsCipherSuites: checked('tls-cipher-suites', 'strings', [] as string[], "cipher suites for TLS up to 1.2 (comma-separated, Go's names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); the defaults when not given; TLS 1.3's are always on",
    (t) => checkCipherSuites(t.split(',').map((s) => s.trim()).filter(Boolean))),
  tokenAuthFile: optionalText('token-auth-file', 'static bearer tokens, one "token,user,uid,\\"group1,group2\\"" line each'),
  /** Anonymous requests as system:anonymous (as the reference). */
  anonymousAuth: boolean('anonymous-auth', true, 'serve requests without credentials as system:anonymous'),
  /** --runtime-config's entries (`key[=true|false]`), checked as the reference checks them; see api/runtime-config.ts. */
  runtimeConfig: checked('runtime-config', 'strings', [] as string[], 'built-in API versions and resources to serve or not: api/all, api/ga, api/beta, api/alpha, group/version or group/version/resource, each =true or =false (comma-separated; alpha versions are off by default)',
    (t) => {
      const entries = t.split(',').map((s) => s.trim()).filter(Boolean);
      runtimeConfig(entries);
      return entries;
    }),
  /** --feature-gates' entries (`Name=bool`, every occurrence in order), checked as the reference checks them; see api/feature-gates.ts. */
  featureGates: checked('feature-gates', 'strings', [] as string[], `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${featureGateHelpLines().join('\n')}`,
    (t) => {
      const entries = t.split(',').map((s) => s.trim()).filter(Boolean);
      FeatureGates.parse(entries);
      return entries;
    }),
  authorizationMode: authorizationModes('authorization-mode', 'RBAC', 'RBAC or AlwaysAllow (comma-separated as the reference\'s list; Node is accepted beside RBAC and adds nothing, as no kubelet runs); system:masters is always allowed'),
  advertiseAddress: optionalText('advertise-address', 'the address clients are told to use (added to the serving certificate)'),
  /** Names the serving certificate carries beyond the loopback ones, the host name and the addresses served. */
  extraServingNames: list('apiserver-cert-extra-sans', 'more host names and IP addresses (comma-separated) for the serving certificate, as kubeadm\'s flag'),
  /** The issuer (iss) of service-account tokens, also the default API audience (as the reference's --api-audiences). */
  serviceAccountIssuer: issuerUrl('service-account-issuer', 'https://kubernetes.default.svc.cluster.local', 'the issuer of service-account tokens, served at /.well-known/openid-configuration when it is an https URL'),
  /** Where relying parties fetch the signing keys; https://<advertise address>:<port>/openid/v1/jwks when absent. */
  /** PEM private key (RSA or ECDSA) service-account tokens are signed with; capstan's own (in --cert-dir) when absent. */
  serviceAccountSigningKeyFile: optionalText('service-account-signing-key-file', 'the private key service-account tokens are signed with (its own key in --cert-dir when not given)'),
  /** PEM files (public keys, certificates or private keys) tokens are verified with; the signing key's must be among them. */
  serviceAccountKeyFiles: list('service-account-key-file', 'PEM public keys, certificates or private keys that verify service-account tokens; must hold the signing key\'s (may be repeated)'),
  serviceAccountJwksUri: httpsUrl('service-account-jwks-uri', 'the jwks_uri of /.well-known/openid-configuration', '"https://<advertise-address>:<secure-port>/openid/v1/jwks"'),
  /** Admission plugins beyond the defaults, and those turned off. */
  enableAdmissionPlugins: list('enable-admission-plugins', 'admission plugins (comma-separated) to turn on beyond the defaults'),
  disableAdmissionPlugins: list('disable-admission-plugins', 'admission plugins (comma-separated) to turn off'),
  /** kube-controller-manager's --controllers: which in-process controllers run (`*`, `name`, `-name`). */
  controllers: checked('controllers', 'strings', ['*'], 'controllers to run (comma-separated, as kube-controller-manager\'s): \'*\' turns on every controller on by default, \'foo\' turns on foo, \'-foo\' turns off foo', parseControllers),
  /** kube-controller-manager's --terminated-pod-gc-threshold: terminated pods kept before podgc deletes the oldest (0: no limit). */
  /** kube-controller-manager's leader election: on by default when the store is shared (etcd), off on a store only this server opens. */
  leaderElect: optionalBoolean('leader-elect', 'run the controllers only while this server holds the kube-controller-manager Lease in kube-system, so that servers sharing one etcd run them once', 'true with --storage etcd'),
  leaderElectLeaseDurationMs: duration('leader-elect-lease-duration', '15s', 'how long a candidate that is not the leader waits, after it last saw the Lease change, before it takes the Lease'),
  leaderElectRenewDeadlineMs: duration('leader-elect-renew-deadline', '10s', 'how long the leader tries to renew the Lease before it stops leading'),
  leaderElectRetryPeriodMs: duration('leader-elect-retry-period', '2s', 'how long candidates wait between tries to take or renew the Lease'),
  leaderElectResourceName: text('leader-elect-resource-name', 'kube-controller-manager', 'the name of the Lease the controllers are elected by'),
  leaderElectResourceNamespace: text('leader-elect-resource-namespace', 'kube-system', 'the namespace of that Lease'),
  terminatedPodGcThreshold: integer('terminated-pod-gc-threshold', 12500, 0, 'number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods; if <= 0, the terminated pod garbage collector is disabled', (n) => `--terminated-pod-gc-threshold ${n} can't be a negative number`),
  /** CIDR(s) Service cluster IPs come from: one, or an IPv4 and an IPv6 one separated by a comma. */
  serviceClusterIpRange: text('service-cluster-ip-range', DEFAULT_SERVICE_CLUSTER_IP_RANGE, 'CIDR(s) Service cluster IPs are allocated from; one, or an IPv4 and an IPv6 one for dual-stack'),
  /** NodePorts come from this range ("30000-32767"). */
  serviceNodePortRange: text('service-node-port-range', DEFAULT_SERVICE_NODE_PORT_RANGE, 'ports NodePort services are allocated from'),
  /** The audit policy (audit.k8s.io/v1 Policy, YAML or JSON); nothing is audited without one. */
  auditPolicyFile: optionalText('audit-policy-file', 'path to the file that defines the audit policy configuration (audit.k8s.io/v1 Policy)'),
  /** Where audit events are written, one per line; "-" for standard output. */
  auditLogPath: optionalText('audit-log-path', "if set, all requests coming to the apiserver will be logged to this file; '-' means standard out"),
  auditLogMaxAge: notNegative('audit-log-maxage', 'the maximum number of days to retain old audit log files based on the timestamp encoded in their filename'),
  auditLogMaxBackup: notNegative('audit-log-maxbackup', "the maximum number of old audit log files to retain; 0 means there's no restriction on the number of files"),
  auditLogMaxSize: notNegative('audit-log-maxsize', 'the maximum size in megabytes of the audit log file before it gets rotated (100 when 0)'),
  auditLogCompress: boolean('audit-log-compress', false, 'if set, the rotated log files will be compressed using gzip'),
  auditLogFormat: oneOf('audit-log-format', ['legacy', 'json'] as const, 'json', 'format of saved audits: "legacy" is a 1-line text format for each event, "json" structured json format'),
  auditLogMode: oneOf('audit-log-mode', ['batch', 'blocking', 'blocking-strict'] as const, 'blocking', 'strategy for sending audit events: blocking, batch or blocking-strict (a request fails when its first event cannot be taken); events are queued and never hold a request up'),
  auditLogVersion: oneOf('audit-log-version', ['audit.k8s.io/v1'] as const, 'audit.k8s.io/v1', 'API group and version used for serializing audit events written to log'),
  auditLogBatchBufferSize: integer('audit-log-batch-buffer-size', 10000, 1, 'the size of the buffer to store events before writing; past it, events are dropped (and counted)', (n) => `invalid audit batch log buffer size ${n}, must be a positive number`),
  auditLogBatchMaxSize: integer('audit-log-batch-max-size', 1, 1, 'the maximum size of a batch (batch mode)', (n) => `invalid audit batch log max batch size ${n}, must be a positive number`),
  /** A kubeconfig naming the audit webhook; events are POSTed to it as EventLists. */
  auditWebhookConfigFile: optionalText('audit-webhook-config-file', 'path to a kubeconfig-formatted file that defines the audit webhook configuration'),
  auditWebhookMode: oneOf('audit-webhook-mode', ['batch', 'blocking', 'blocking-strict'] as const, 'batch', 'strategy for sending audit events to the webhook: batch, blocking or blocking-strict'),
  auditWebhookBatchBufferSize: integer('audit-webhook-batch-buffer-size', 10000, 1, 'the size of the buffer to store events before batching and sending; past it, events are dropped (and counted)', (n) => `invalid audit batch webhook buffer size ${n}, must be a positive number`),
  auditWebhookBatchMaxSize: integer('audit-webhook-batch-max-size', 400, 1, 'the maximum size of a batch (batch mode)', (n) => `invalid audit batch webhook max batch size ${n}, must be a positive number`),
  auditWebhookBatchMaxWaitMs: duration('audit-webhook-batch-max-wait', '30s', 'the amount of time to wait before force writing the batch that hadn\'t reached the max size (batch mode)'),
  auditWebhookBatchThrottleEnable: boolean('audit-webhook-batch-throttle-enable', true, 'whether batching throttling is enabled (batch mode)'),
  auditWebhookBatchThrottleQps: positiveNumber('audit-webhook-batch-throttle-qps', 10, 'maximum average number of batches per second (batch mode)', (n) => `invalid audit batch webhook throttle QPS ${n}, must be a positive number`),
  auditWebhookBatchThrottleBurst: integer('audit-webhook-batch-throttle-burst', 15, 1, 'maximum number of requests sent at the same moment if ThrottleQPS was not utilized before (batch mode)', (n) => `invalid audit batch webhook throttle burst ${n}, must be a positive number`),
  auditWebhookInitialBackoffMs: duration('audit-webhook-initial-backoff', '10s', 'the amount of time to wait before retrying the first failed request'),
  auditWebhookVersion: oneOf('audit-webhook-version', ['audit.k8s.io/v1'] as const, 'audit.k8s.io/v1', 'API group and version used for serializing audit events written to webhook'),
  /** Plain HTTP, where a request without credentials acts as the loopback admin (tests only). */
  insecure: toggle('insecure-serving', 'plain HTTP, where requests without credentials act as an administrator: for tests on loopback only, never for a reachable server'),
  /** How long a client may take to send a request's headers before its connection is closed (the reference's ReadHeaderTimeout, 32s). */
  requestHeaderTimeoutMs: unflagged(32_000),
  /** How often every remote APIService's availability is checked besides on changes (the reference: 30 s). */
  apiServiceRecheckMs: unflagged(30_000),
  /** How often the bootstrap FlowSchemas and PriorityLevelConfigurations are made to hold again (the reference: every minute). */
  apfBootstrapPeriodMs: unflagged(60_000),
  /** Whether the bootstrap FlowSchemas and PriorityLevelConfigurations are kept (tests that count the store's revisions from the start turn it off). */
  apfBootstrap: unflagged(true),
  /** Whether the local APIServices are made (tests that count the store's revisions from the start turn them off). */
  localApiServices: unflagged(true),
  /** klog's verbosity: 0 logs the start and errors; 3 and up one line per request, as the reference. */
  verbosity: level('v', 'v', 'log level: 0 logs the start and errors, 3 and up one line per request'),
  /** Where the request log's lines go; stderr when absent (tests and embedders collect them). */
  requestLogWriter: unflagged<((line: string) => void) | undefined>(undefined),
  /** TLS material to use as it is instead of --cert-dir's (embedders starting many servers share one). */
  servingMaterial: unflagged<ServingMaterial | undefined>(undefined),
  /** Whether /metrics is served and requests recorded (off only for the benchmark that measures their cost). */
  metrics: unflagged<boolean>(true),
  /** Run the controllers that give every namespace its default objects (tests that count revisions turn it off). */
  namespaceDefaults: unflagged(true),
  /** Run the garbage collector (its own tests run theirs). */
  garbageCollector: unflagged(true),
  /** Keep the `kubernetes` Service, Endpoints and EndpointSlice in `default` (tests that count objects turn it off). */
  kubernetesService: unflagged(true),
};

type ValueOf<S> = S extends Setting<infer T> ? T : never;

/** Everything the server is told, from the command line or from startServer's caller. */
export type Options = { -readonly [K in keyof typeof SETTINGS]: ValueOf<(typeof SETTINGS)[K]> };

/** `given` with every setting it leaves out (or undefined) at its default. */
export function withDefaults(given: Partial<Options> = {}): Options {
  const options: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as Array<[string, Setting<unknown>]>) {
    const value = (given as Record<string, unknown>)[key];
    // Lists are copied, so that no two servers share (and change) one default.
    options[key] = value !== undefined ? value : Array.isArray(setting.default) ? [...setting.default] : setting.default;
  }
  return options as Options;
}

/** The settings that have a flag, with their option names. */
export function flags(): Array<{ key: keyof Options; flag: Flag<unknown>; default: unknown }> {
  return (Object.entries(SETTINGS) as Array<[keyof Options, Setting<unknown>]>)
    .filter(([, s]) => s.flag !== undefined)
    .map(([key, s]) => ({ key, flag: s.flag!, default: s.default }));
}
