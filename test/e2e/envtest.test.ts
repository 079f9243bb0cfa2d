// controller-runtime's envtest, process for process: `capstan envtest-assets DIR` makes the
// folder KUBEBUILDER_ASSETS names; this test does what envtest 0.13–0.19 does with it (recorded
// from its source in test/fixtures/envtest/controller-runtime.json): probes each binary's --help,
// starts etcd and kube-apiserver with exactly its argv in their own process groups, polls their
// health the way it does, then works as envtest's default user (a client certificate of its own CA
// in system:masters): installs a CRD and waits for discovery as InstallCRDs does, uses it, checks
// tokens are signed with envtest's key, runs kubectl with envtest's kubeconfig, and stops both.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createVerify, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { ensureServingMaterial, issueClientCertificate } from '../../src/server/certs.js';
import { call, fixturesDir, mustOk, probeStatus, repoRoot, until, type ClientTls } from '../helpers.js';
import { freePort } from '../storage/etcd-process.js';

const run = promisify(execFile);
const envtest = JSON.parse(readFileSync(join(fixturesDir, 'envtest', 'controller-runtime.json'), 'utf8')) as {
  etcd: { args: Record<string, string[]>; argsWhenHelpLists: Record<string, string[]> };
  'kube-apiserver': { args: Record<string, string[]>; argsWhenHelpLists: Record<string, string[]> };
};

/** BinPathFinder: TEST_ASSET_<NAME>, else KUBEBUILDER_ASSETS/<name>. */
function binPath(name: string, env: NodeJS.ProcessEnv): string {
  const override = env[`TEST_ASSET_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`];
  return override ?? join(env['KUBEBUILDER_ASSETS'] ?? '/usr/local/kubebuilder/bin', name);
}

/** process.CheckFlag: whether `binary --help` lists --flag at the start of a line. */
async function helpLists(binary: string, flag: string): Promise<boolean> {
  const { stdout, stderr } = await run(binary, ['--help'], { timeout: 20_000 });
  return new RegExp(`^\\s*--${flag}\\b`, 'm').test(stdout + stderr);
}

/** Arguments.AsStrings: the templates filled in, flags sorted, each --name=value. */
async function argv(binary: string, spec: { args: Record<string, string[]>; argsWhenHelpLists: Record<string, string[]> }, vars: Record<string, string>): Promise<string[]> {
  const fill = (s: string) => s.replace(/\{\{(\w+)\}\}/g, (_, k: string) => vars[k] ?? assert.fail(`no ${k}`));
  const args = new Map(Object.entries(spec.args));
  for (const [flag, values] of Object.entries(spec.argsWhenHelpLists)) {
    if (await helpLists(binary, flag)) args.set(flag, values);
  }
  return [...args.keys()].sort().flatMap((flag) => args.get(flag)!.map((v) => `--${flag}=${fill(v)}`));
}


interface Started {
  child: ChildProcess;
  output: () => string;
}

/** process.State.Start: spawn in its own process group, poll `healthUrl` every 100 ms until 200 (20 s). */
async function startProcess(binary: string, args: string[], env: NodeJS.ProcessEnv, healthUrl: string): Promise<Started> {
  let output = '';
  const child = spawn(binary, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));
  await until(() => `${binary} healthy at ${healthUrl}; output: ${output}`, async () => {
    if (exited) assert.fail(`${binary} exited: ${output}`);
    return (await probeStatus(healthUrl)) === 200;
  }, 20_000, 100);
  return { child, output: () => output };
}

/** process.State.Stop: SIGTERM, wait up to 20 s; resolves with the exit code. */
function stopProcess(p: Started): Promise<number | null> {
  if (p.child.exitCode !== null) return Promise.resolve(p.child.exitCode);
  const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
  p.child.kill('SIGTERM');
  return Promise.race([exited, new Promise<number | null>((_, reject) => setTimeout(() => reject(new Error('did not stop in 20 s')), 20_000))]);
}

describe('envtest drop-in (KUBEBUILDER_ASSETS from `capstan envtest-assets`)', { timeout: 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'capstan-envtest-'));
  const assets = join(work, 'assets');
  const certDir = mkdtempSync(join(tmpdir(), 'k8s_test_framework_'));
  const etcdDataDir = mkdtempSync(join(tmpdir(), 'k8s_test_framework_'));
  const env = { ...process.env, KUBEBUILDER_ASSETS: assets };
  let etcd: Started;
  let apiserver: Started;
  let base: string;
  let tls: ClientTls;
  let saSigner: string;
  let servingCert: string;
  const tmpBefore = new Set(readdirSync(tmpdir()));

  before(async () => {
    await run(process.execPath, [join(repoRoot, 'dist/src/cmd/capstan.js'), 'envtest-assets', assets], { timeout: 20_000 });
    // envtest's three tiny CAs: serving, service-account signer, client certificates.
    const [serving, signer, clients] = await Promise.all(['serving', 'signer', 'clients'].map((n) => ensureServingMaterial(join(work, n), [])));
    writeFileSync(join(certDir, 'apiserver.crt'), serving!.serverCert, { mode: 0o640 });
    writeFileSync(join(certDir, 'apiserver.key'), serving!.serverKey, { mode: 0o640 });
    writeFileSync(join(certDir, 'sa-signer.crt'), signer!.caCert, { mode: 0o640 });
    writeFileSync(join(certDir, 'sa-signer.key'), signer!.caKey, { mode: 0o640 });
    writeFileSync(join(certDir, 'client-cert-auth-ca.crt'), clients!.caCert, { mode: 0o640 });
    saSigner = signer!.caCert;
    servingCert = serving!.serverCert;
    const user = await issueClientCertificate(clients!, 'default', ['system:masters']);
    tls = { ca: serving!.caCert, cert: user.cert, key: user.key };

    const host = '127.0.0.1';
    const [etcdPort, peerPort, port] = await Promise.all([freePort(), freePort(), freePort()]);
    const etcdUrl = `http://${host}:${etcdPort}`;
    const vars = { host, etcdUrl, peerPort: String(peerPort), etcdDataDir, certDir, port: String(port) };
    const etcdBinary = binPath('etcd', env);
    etcd = await startProcess(etcdBinary, await argv(etcdBinary, envtest.etcd, vars), env, `${etcdUrl}/health`);
    const apiBinary = binPath('kube-apiserver', env);
    base = `https://${host}:${port}/`;
    apiserver = await startProcess(apiBinary, await argv(apiBinary, envtest['kube-apiserver'], vars), env, `${base}healthz`);
  });

  after(async () => {
    for (const p of [apiserver, etcd]) if (p) await stopProcess(p).catch(() => p.child.kill('SIGKILL'));
    for (const dir of [work, certDir, etcdDataDir]) rmSync(dir, { recursive: true, force: true });
  });

  it('--help: kube-apiserver lists the reference\'s flags (no --insecure-port, as 1.25); etcd lists --unsafe-no-fsync', async () => {
    assert.equal(await helpLists(binPath('kube-apiserver', env), 'insecure-port'), false);
    for (const flag of ['etcd-servers', 'cert-dir', 'client-ca-file', 'service-account-signing-key-file', 'allow-privileged', 'audit-log-path']) {
      assert.ok(await helpLists(binPath('kube-apiserver', env), flag), flag);
    }
    assert.ok(await helpLists(binPath('etcd', env), 'unsafe-no-fsync'));
  });

  it('serves with envtest\'s certificate and trusts its users: the default user (system:masters) lists namespaces', async () => {
    const r = await mustOk(call(base, 'GET', '/api/v1/namespaces', { tls }));
    assert.deepEqual(r.json.items.map((n: { metadata: { name: string } }) => n.metadata.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    // Anonymous: the health probes only.
    const anonymous = await call(base, 'GET', '/api/v1/namespaces', { tls: { ca: tls.ca } });
    assert.equal(anonymous.status, 403);
    assert.match(anonymous.json.message, /system:anonymous/);
  });

  it('every flag envtest passes is implemented: the log names none as having no effect', () => {
    assert.match(apiserver.output(), /kube-apiserver \(capstan\) serving on https:\/\/127\.0\.0\.1:\d+ \(storage: memory\)/);
    assert.doesNotMatch(apiserver.output(), /not implemented|not enforced/);
  });

  it('InstallCRDs: create, discovery lists it within the poll, custom resources work', async () => {
    const crd = parseYaml(readFileSync(join(fixturesDir, 'crds', 'cert-manager.io_issuers.yaml'), 'utf8')) as { spec: { group: string; names: { plural: string }; versions: Array<{ name: string; served: boolean }> } };
    await mustOk(call(base, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { tls, body: crd }), 201);
    const started = Date.now();
    for (const version of crd.spec.versions.filter((v) => v.served)) {
      await until(`${crd.spec.group}/${version.name} lists ${crd.spec.names.plural}`, async () => {
        const r = await call(base, 'GET', `/apis/${crd.spec.group}/${version.name}`, { tls });
        return r.status === 200 && r.json.resources.some((res: { name: string }) => res.name === crd.spec.names.plural);
      }, 10_000, 100);
    }
    assert.ok(Date.now() - started < 10_000);
    const issuer = { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: { name: 'selfsigned', namespace: 'default' }, spec: { selfSigned: {} } };
    await mustOk(call(base, 'POST', '/apis/cert-manager.io/v1/namespaces/default/issuers', { tls, body: issuer }), 201);
    const bad = await call(base, 'POST', '/apis/cert-manager.io/v1/namespaces/default/issuers', { tls, body: { ...issuer, metadata: { name: 'bad', namespace: 'default' }, spec: { selfSigned: 'yes' } } });
    assert.equal(bad.status, 422, bad.text);
    const list = await mustOk(call(base, 'GET', '/apis/cert-manager.io/v1/namespaces/default/issuers', { tls }));
    assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['selfsigned']);
  });

  it('service-account tokens are signed with envtest\'s sa-signer.key and verified by the server', async () => {
    await until('the default ServiceAccount', async () => (await call(base, 'GET', '/api/v1/namespaces/default/serviceaccounts/default', { tls })).status === 200);
    const r = await mustOk(call(base, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { tls, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } }), 201);
    const token: string = r.json.status.token;
    const [header, payload, signature] = token.split('.');
    assert.equal(JSON.parse(Buffer.from(header!, 'base64url').toString()).alg, 'ES256');
    assert.equal(JSON.parse(Buffer.from(payload!, 'base64url').toString()).iss, base);
    const verify = createVerify('SHA256').update(`${header}.${payload}`);
    assert.ok(verify.verify({ key: new X509Certificate(saSigner).publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature!, 'base64url')));
    const review = await mustOk(call(base, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { tls, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } }), 201);
    assert.equal(review.json.status.authenticated, true);
    assert.equal(review.json.status.user.username, 'system:serviceaccount:default:default');
  });

  it('kubectl with envtest\'s kubeconfig (KubeConfigFromREST) works, and namespaces are deleted for real', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const kubeconfig = join(certDir, 'envtest.kubecfg');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: envtest\n  cluster:\n    server: ${base}\n    certificate-authority-data: ${b64(tls.ca)}\nusers:\n- name: envtest\n  user:\n    client-certificate-data: ${b64(tls.cert!)}\n    client-key-data: ${b64(tls.key!)}\ncontexts:\n- name: envtest\n  context:\n    cluster: envtest\n    user: envtest\ncurrent-context: envtest\n`);
    const kubectl = join(assets, 'kubectl');
    const bin = existsSync(kubectl) ? kubectl : 'kubectl';
    await run(bin, ['--kubeconfig', kubeconfig, 'create', 'namespace', 'envtest-ns'], { timeout: 30_000 });
    const { stdout } = await run(bin, ['--kubeconfig', kubeconfig, 'get', 'issuers.cert-manager.io', '-n', 'default', '-o', 'name'], { timeout: 30_000 });
    assert.equal(stdout.trim(), 'issuer.cert-manager.io/selfsigned');
    await run(bin, ['--kubeconfig', kubeconfig, 'delete', 'namespace', 'envtest-ns', '--wait=true', '--timeout=20s'], { timeout: 30_000 });
    const gone = await call(base, 'GET', '/api/v1/namespaces/envtest-ns', { tls });
    assert.equal(gone.status, 404);
  });

  it('stops on SIGTERM within envtest\'s 20 s, leaving no folder of its own behind', async () => {
    assert.equal(await stopProcess(apiserver), 0);
    assert.equal(await stopProcess(etcd), 0);
    const left = readdirSync(tmpdir()).filter((name) => !tmpBefore.has(name) && name.startsWith('capstan-kube-apiserver-'));
    assert.deepEqual(left, []);
    // envtest's own files are untouched: its serving certificate is still the one it wrote.
    assert.equal(readFileSync(join(certDir, 'apiserver.crt'), 'utf8'), servingCert);
  });
});
