import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HELP, OptionsError, parseDuration, parseOptions } from '../../src/cmd/options.js';
import { flags } from '../../src/server/options.js';

describe('command-line options', () => {
  it('is -h or --help', () => {
    assert.equal(parseOptions(['-h']).help, true);
    assert.equal(parseOptions(['--help']).help, true);
  });

  it('has the reference defaults', () => {
    const o = parseOptions([]).options;
    assert.equal(o.bindAddress, '127.0.0.1');
    assert.equal(o.port, 6443);
    assert.equal(o.dataDir, './.capstan');
    assert.equal(o.storage, 'sqlite');
    assert.equal(o.historyWindowMs, 300_000);
  });

  it('parses every flag', () => {
    const o = parseOptions(['--bind-address', '0.0.0.0', '--secure-port=0', '--data-dir', '/tmp/x', '--storage', 'memory', '--watch-history-window', '1m30s']);
    assert.deepEqual(o, {
      help: false,
      version: false,
      given: new Set(['bind-address', 'secure-port', 'data-dir', 'storage', 'watch-history-window']),
      unimplemented: [],
      handled: new Map(),
      options: {
        bindAddress: '0.0.0.0', port: 0, dataDir: '/tmp/x', storage: 'memory', historyWindowMs: 90_000, insecure: false,
        certDir: undefined, tlsCertFile: undefined, tlsPrivateKeyFile: undefined, clientCaFile: undefined, tokenAuthFile: undefined,
        tlsMinVersion: undefined, tlsCipherSuites: [], requestHeaderTimeoutMs: 32_000,
        anonymousAuth: true, authorizationMode: 'RBAC', advertiseAddress: undefined,
        enableAdmissionPlugins: [], disableAdmissionPlugins: [], serviceClusterIpRange: '10.96.0.0/12', serviceNodePortRange: '30000-32767',
        controllers: ['*'], terminatedPodGcThreshold: 12_500,
        leaderElect: undefined, leaderElectLeaseDurationMs: 15_000, leaderElectRenewDeadlineMs: 10_000, leaderElectRetryPeriodMs: 2_000,
        leaderElectResourceName: 'kube-controller-manager', leaderElectResourceNamespace: 'kube-system',
        namespaceDefaults: true, garbageCollector: true, kubernetesService: true, metrics: true,
        extraServingNames: [], serviceAccountIssuer: 'https://kubernetes.default.svc.cluster.local', serviceAccountJwksUri: undefined, verbosity: 0, requestLogWriter: undefined, runtimeConfig: [], featureGates: [], minRequestTimeoutSeconds: 1800, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, enablePriorityAndFairness: true, apfBootstrapPeriodMs: 60_000, apfBootstrap: true, shutdownDelayMs: 0, livezGracePeriodMs: 0, requestTimeoutMs: 60000,
        serviceAccountSigningKeyFile: undefined, serviceAccountKeyFiles: [], servingMaterial: undefined,
        etcdServers: [], etcdServersOverrides: [], etcdCafile: undefined, etcdCertfile: undefined, etcdKeyfile: undefined, etcdPrefix: '/registry',
        storageMediaType: 'application/vnd.kubernetes.protobuf', etcdCompactionIntervalMs: 300_000, eventTtlMs: 3_600_000, encryptionProviderConfig: undefined,
        auditPolicyFile: undefined, auditLogPath: undefined, auditLogMaxAge: 0, auditLogMaxBackup: 0, auditLogMaxSize: 0, auditLogCompress: false,
        auditLogFormat: 'json', auditLogMode: 'blocking', auditLogVersion: 'audit.k8s.io/v1', auditLogBatchBufferSize: 10000, auditLogBatchMaxSize: 1,
        auditWebhookConfigFile: undefined, auditWebhookMode: 'batch', auditWebhookBatchBufferSize: 10000, auditWebhookBatchMaxSize: 400, auditWebhookBatchMaxWaitMs: 30_000,
        auditWebhookBatchThrottleEnable: true, auditWebhookBatchThrottleQps: 10, auditWebhookBatchThrottleBurst: 15, auditWebhookInitialBackoffMs: 10_000, auditWebhookVersion: 'audit.k8s.io/v1',
        requestheaderClientCaFile: undefined, requestheaderAllowedNames: [], requestheaderUsernameHeaders: [], requestheaderGroupHeaders: [], requestheaderExtraHeadersPrefix: [],
        proxyClientCertFile: undefined, proxyClientKeyFile: undefined, apiServiceRecheckMs: 30_000, localApiServices: true,
      },
    });
    const admission = parseOptions(['--enable-admission-plugins', 'AlwaysPullImages,NodeRestriction', '--disable-admission-plugins=ResourceQuota']).options;
    assert.deepEqual(admission.enableAdmissionPlugins, ['AlwaysPullImages', 'NodeRestriction']);
    assert.deepEqual(admission.disableAdmissionPlugins, ['ResourceQuota']);
    const secure = parseOptions(['--token-auth-file', 't.csv', '--anonymous-auth=false', '--authorization-mode', 'AlwaysAllow', '--cert-dir', '/p']).options;
    assert.equal(secure.anonymousAuth, false);
    assert.equal(secure.authorizationMode, 'AlwaysAllow');
    assert.equal(secure.tokenAuthFile, 't.csv');
    assert.equal(secure.certDir, '/p');
  });

  it('refuses bad values with a message naming the flag', () => {
    assert.throws(() => parseOptions(['--secure-port', '70000']), (e: unknown) => e instanceof OptionsError && /--secure-port/.test(e.message));
    assert.throws(() => parseOptions(['--storage', 'etcd3']), /--storage/);
    assert.throws(() => parseOptions(['--watch-history-window', 'soon']), /--watch-history-window/);
    assert.throws(() => parseOptions(['--no-such-flag']), OptionsError);
    assert.throws(() => parseOptions(['--insecure-serving', '--bind-address', '0.0.0.0']), /loopback/);
    assert.throws(() => parseOptions(['--authorization-mode', 'ABAC']), /--authorization-mode/);
    assert.throws(() => parseOptions(['--tls-cert-file', 'a.crt']), /go together/);
    assert.throws(() => parseOptions(['--service-cluster-ip-range', '10.0.0.0/8']), /specified --service-cluster-ip-range is too large/);
    assert.throws(() => parseOptions(['--service-node-port-range', '32767-30000']), /end port cannot be less than start port/);
  });

  it('reads the reference\'s --authorization-mode lists, refusing the authorizers capstan lacks', () => {
    assert.equal(parseOptions(['--authorization-mode=Node,RBAC']).options.authorizationMode, 'RBAC');
    assert.equal(parseOptions(['--authorization-mode=RBAC,AlwaysAllow']).options.authorizationMode, 'AlwaysAllow');
    assert.throws(() => parseOptions(['--authorization-mode=Node']), /must include RBAC or AlwaysAllow/);
    assert.throws(() => parseOptions(['--authorization-mode=RBAC,Webhook']), /does not implement the Webhook authorizer/);
    assert.throws(() => parseOptions(['--authorization-mode=RBAC,Magic']), /"Magic" is not a valid mode/);
  });

  it('adds up repeated list flags, as pflag', () => {
    const o = parseOptions(['--service-account-key-file=a.pem', '--service-account-key-file', 'b.pem,c.pem']).options;
    assert.deepEqual(o.serviceAccountKeyFiles, ['a.pem', 'b.pem', 'c.pem']);
  });

  it('in a dialect: its flags are accepted (both spellings), the handled ones returned, the rest listed once', () => {
    const dialect = { flags: new Map<string, 'bool' | 'value'>([['insecure-bind-address', 'value'], ['goaway-chance', 'value'], ['profiling', 'bool']]), handled: ['insecure-bind-address'] };
    const c = parseOptions(['--insecure-bind-address', '10.0.0.1', '--insecure-bind-address=10.0.0.2', '--goaway-chance', '0.01', '--profiling', '--goaway-chance=0.02', '--secure-port=0'], dialect);
    assert.equal(c.handled.get('insecure-bind-address'), '10.0.0.1,10.0.0.2');
    assert.deepEqual(c.unimplemented, ['goaway-chance', 'profiling']);
    assert.equal(c.options.port, 0);
    assert.throws(() => parseOptions(['--no-such-flag'], dialect), /unknown flag: --no-such-flag/);
    assert.throws(() => parseOptions(['--goaway-chance'], dialect), /flag needs an argument: --goaway-chance/);
  });

  it('stores in etcd when --etcd-servers is given, and checks the etcd flags together', () => {
    const o = parseOptions(['--etcd-servers', 'http://a:2379,https://b:2379', '--etcd-prefix=/kube']).options;
    assert.equal(o.storage, 'etcd');
    assert.deepEqual(o.etcdServers, ['http://a:2379', 'https://b:2379']);
    assert.equal(o.etcdPrefix, '/kube');
    assert.equal(parseOptions(['--etcd-servers=http://a:2379', '--storage=memory']).options.storage, 'memory');
    assert.equal(parseOptions([]).options.etcdPrefix, '/registry');
    assert.throws(() => parseOptions(['--storage=etcd']), /--storage etcd: --etcd-servers must name at least one etcd/);
    assert.throws(() => parseOptions(['--etcd-servers=http://a:1', '--etcd-certfile=c.pem']), /--etcd-certfile and --etcd-keyfile go together/);
  });

  it('reads --etcd-servers-overrides as the reference does, and refuses what it refuses', () => {
    const o = parseOptions(['--etcd-servers=http://a:2379', '--etcd-servers-overrides', '/events#http://e1:2379;http://e2:2379,apps/deployments#https://d:2379']).options;
    assert.deepEqual(o.etcdServersOverrides, [
      { group: '', resource: 'events', servers: ['http://e1:2379', 'http://e2:2379'] },
      { group: 'apps', resource: 'deployments', servers: ['https://d:2379'] },
    ]);
    for (const bad of ['events#http://e:2379', '/events', '/events#a#b', 'a/b/c#http://e:2379']) {
      assert.throws(() => parseOptions(['--etcd-servers-overrides', bad]), /--etcd-servers-overrides: invalid, must be of format: group\/resource#servers, where servers are URLs, semicolon separated/, bad);
    }
  });

  it('lists every flag in --help, with its default', () => {
    for (const { flag } of flags()) assert.ok(HELP.includes(`--${flag.name}`), flag.name);
    assert.match(HELP, /--secure-port int +port to listen on; 0 picks a free one \(default 6443\)/);
    assert.match(HELP, /\(default 5m0s\)/);
    assert.match(HELP, /\(default "<data-dir>\/pki"\)/);
    assert.ok(HELP.split('\n').every((line) => line.length <= 100));
  });

  it('reads -v and --v as klog does, and --version', () => {
    for (const argv of [['-v', '3'], ['-v=3'], ['--v', '3'], ['--v=3']]) assert.equal(parseOptions(argv).options.verbosity, 3, argv.join(' '));
    assert.equal(parseOptions([]).options.verbosity, 0);
    assert.throws(() => parseOptions(['-v', 'loud']), /--v: invalid log level "loud"/);
    assert.equal(parseOptions(['--version']).version, true);
    assert.equal(parseOptions([]).version, false);
    assert.match(HELP, /-v, --v int +log level: 0 logs the start and errors, 3 and up one line per request/);
  });

  it('names what is wrong on the command line', () => {
    assert.throws(() => parseOptions(['--no-such-flag']), { message: 'unknown flag: --no-such-flag' });
    assert.throws(() => parseOptions(['-x']), { message: 'unknown flag: -x' });
    assert.throws(() => parseOptions(['--data-dir']), { message: 'flag needs an argument: --data-dir' });
    assert.throws(() => parseOptions(['serve']), { message: 'unexpected argument "serve": capstan takes flags only' });
    assert.throws(() => parseOptions(['--insecure-serving=yes']), { message: '--insecure-serving: must be true or false, not "yes"' });
    assert.equal(parseOptions(['--insecure-serving=true']).options.insecure, true);
    assert.equal(parseOptions(['--anonymous-auth']).options.anonymousAuth, true);
  });

  it('takes the service-account issuer, the JWKS URI and more serving names', () => {
    assert.equal(parseOptions([]).options.serviceAccountIssuer, 'https://kubernetes.default.svc.cluster.local');
    const o = parseOptions(['--service-account-issuer', 'https://issuer.example.test', '--service-account-jwks-uri', 'https://keys.example.test/jwks', '--apiserver-cert-extra-sans', 'api.example.test,192.0.2.7']).options;
    assert.equal(o.serviceAccountIssuer, 'https://issuer.example.test');
    assert.equal(o.serviceAccountJwksUri, 'https://keys.example.test/jwks');
    assert.deepEqual(o.extraServingNames, ['api.example.test', '192.0.2.7']);
    // As the reference: a colon means a URL; without one any name is an issuer.
    assert.equal(parseOptions(['--service-account-issuer', 'my-cluster']).options.serviceAccountIssuer, 'my-cluster');
    assert.throws(() => parseOptions(['--service-account-issuer', 'https://']), /--service-account-issuer: "https:\/\/" contained a ':' but was not a valid URL/);
    assert.throws(() => parseOptions(['--service-account-jwks-uri', 'http://keys.example.test/jwks']), /--service-account-jwks-uri: requires the https scheme/);
  });

  it('reads Go durations', () => {
    assert.equal(parseDuration('5m'), 300_000);
    assert.equal(parseDuration('250ms'), 250);
    assert.equal(parseDuration('1h0m0s'), 3_600_000);
    assert.equal(parseDuration('1.5s'), 1500);
    assert.equal(parseDuration(''), undefined);
    assert.equal(parseDuration('5x'), undefined);
  });
});

describe('TLS flags as the reference takes them (issue 14)', { timeout: 10_000 }, () => {
  it('reads --tls-min-version and --tls-cipher-suites by Go\'s names', () => {
    const o = parseOptions(['--tls-min-version', 'VersionTLS13', '--tls-cipher-suites', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305']).options;
    assert.equal(o.tlsMinVersion, 'VersionTLS13');
    assert.deepEqual(o.tlsCipherSuites, ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305']);
    // Insecure suites are accepted, as by the reference.
    assert.deepEqual(parseOptions(['--tls-cipher-suites=TLS_RSA_WITH_3DES_EDE_CBC_SHA']).options.tlsCipherSuites, ['TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
  });

  it('refuses names the reference does not know, in its words', () => {
    assert.throws(() => parseOptions(['--tls-min-version', 'VersionTLS14']), (e: unknown) => e instanceof OptionsError && e.message === '--tls-min-version: unknown tls version "VersionTLS14"');
    assert.throws(() => parseOptions(['--tls-min-version', 'TLSv1.2']), /unknown tls version "TLSv1.2"/);
    assert.throws(() => parseOptions(['--tls-cipher-suites', 'TLS_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256']),
      (e: unknown) => e instanceof OptionsError && e.message === "--tls-cipher-suites: Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn't exist");
  });
});
