// TLS material for the listener: a private CA, the serving certificate, the admin client
// certificate and the service-account signing key pair. Laid out in --cert-dir with the
// file names kubeadm uses (ca.crt, apiserver.crt, sa.key, …) so operators find them.
//
// Loading (every start but the first) uses only node:crypto, which parses and checks the
// files natively in well under a millisecond each. Generation (first start, or when a file
// is missing, expired, or no longer covers a requested name) loads @peculiar/x509 lazily.

import { X509Certificate, createPrivateKey, createPublicKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, writeFile, unlink } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { isIPv4, SocketAddress } from 'node:net';
import { join } from 'node:path';

export interface ServingMaterial {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  /** PEM private key (PKCS#8; ECDSA P-256 when we generate it, RSA accepted when provided) for signing service-account tokens. */
  serviceAccountKey: string;
  /** PEM public key (SPKI) matching serviceAccountKey. */
  serviceAccountPublicKey: string;
}

/** The file names inside certDir. */
export const CERT_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  serverCert: 'apiserver.crt',
  serverKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
  serviceAccountKey: 'sa.key',
  serviceAccountPublicKey: 'sa.pub',
} as const satisfies Record<keyof ServingMaterial, string>;

export const CA_COMMON_NAME = 'capstan-ca';
export const SERVER_COMMON_NAME = 'kube-apiserver';
export const ADMIN_USER = 'kubernetes-admin';
export const ADMIN_GROUP = 'system:masters';

/** Names every serving certificate carries besides the caller's. */
export const DEFAULT_SERVING_NAMES = [
  'localhost',
  '127.0.0.1',
  '::1',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
  '10.96.0.1',
];

const CA_DAYS = 3650;
const LEAF_DAYS = 365;
/** Certificates start a little in the past so a peer with a slightly slow clock accepts them. */
const BACKDATE_MS = 5 * 60 * 1000;
/** A leaf that expires sooner than this is renewed at start. */
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------
// Lazy @peculiar/x509 (needs a Reflect polyfill for its dependency injection container).

type X509Module = typeof import('@peculiar/x509');
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
let x509Module: Promise<X509Module> | undefined;
function loadX509(): Promise<X509Module> {
  x509Module ??= (async () => {
    await import('reflect-metadata');
    const mod = await import('@peculiar/x509');
    mod.cryptoProvider.set(webcrypto as unknown as Parameters<X509Module['cryptoProvider']['set']>[0]);
    return mod;
  })();
  return x509Module;
}

const EC_ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const RSA_ALG = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

function toPem(label: string, der: ArrayBuffer | Uint8Array): string {
  const b64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

interface GeneratedKey {
  pair: CryptoKeyPair;
  privatePem: string;
  publicPem: string;
}

async function generateEcKey(): Promise<GeneratedKey> {
  const pair = (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', pair.privateKey);
  const spki = await webcrypto.subtle.exportKey('spki', pair.publicKey);
  return { pair, privatePem: toPem('PRIVATE KEY', pkcs8), publicPem: toPem('PUBLIC KEY', spki) };
}

/** Imports any PEM private key node understands (PKCS#8, SEC1, PKCS#1) as a WebCrypto signing key. */
async function importSigningKey(pem: string): Promise<{ key: CryptoKey; alg: typeof EC_ALG | typeof RSA_ALG | { name: 'ECDSA'; namedCurve: string; hash: string } }> {
  const keyObject = createPrivateKey(pem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  if (keyObject.asymmetricKeyType === 'rsa') {
    const key = await webcrypto.subtle.importKey('pkcs8', der, RSA_ALG, false, ['sign']);
    return { key, alg: RSA_ALG };
  }
  if (keyObject.asymmetricKeyType === 'ec') {
    const curve = keyObject.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === 'secp384r1' ? 'P-384' : curve === 'secp521r1' ? 'P-521' : 'P-256';
    const hash = namedCurve === 'P-384' ? 'SHA-384' : namedCurve === 'P-521' ? 'SHA-512' : 'SHA-256';
    const alg = { name: 'ECDSA' as const, namedCurve, hash };
    const key = await webcrypto.subtle.importKey('pkcs8', der, alg, false, ['sign']);
    return { key, alg };
  }
  throw new Error(`unsupported CA key type ${keyObject.asymmetricKeyType ?? 'unknown'}`);
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01; // positive and without a leading zero octet
  return bytes.toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + days * 24 * 60 * 60 * 1000) };
}

async function createCa(commonName = CA_COMMON_NAME): Promise<{ cert: string; key: string }> {
  const x509 = await loadX509();
  const key = await generateEcKey();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [commonName] }],
    ...validity(CA_DAYS),
    keys: key.pair,
    signingAlgorithm: EC_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(key.pair.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: key.privatePem };
}

interface LeafRequest {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client';
  days: number;
}

async function issueLeaf(caCertPem: string, caKeyPem: string, request: LeafRequest): Promise<{ cert: string; key: string }> {
  const x509 = await loadX509();
  const ca = new x509.X509Certificate(caCertPem);
  const signer = await importSigningKey(caKeyPem);
  const key = await generateEcKey();
  const name: Array<Record<string, string[]>> = [];
  for (const o of request.organizations ?? []) name.push({ O: [o] });
  name.push({ CN: [request.commonName] });
  const extensions: InstanceType<X509Module['Extension']>[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(
      request.usage === 'server'
        ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment
        : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    new x509.ExtendedKeyUsageExtension(
      [request.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
      false,
    ),
    await x509.AuthorityKeyIdentifierExtension.create(ca, false),
    await x509.SubjectKeyIdentifierExtension.create(key.pair.publicKey),
  ];
  const altNames = [
    ...(request.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(request.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: name,
    issuer: ca.subjectName,
    ...validity(request.days),
    publicKey: key.pair.publicKey,
    signingKey: signer.key,
    signingAlgorithm: signer.alg,
    extensions,
  });
  return { cert: cert.toString('pem') + '\n', key: key.privatePem };
}

// ---------------------------------------------------------------------------------------
// Files.

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes through a temporary file and a rename, so a crash or a concurrent start never leaves half a file. */
async function writeAtomic(path: string, contents: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(tmp, contents, { mode, flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

function parseCert(pem: string | undefined): X509Certificate | undefined {
  if (pem === undefined) return undefined;
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

function parseKey(pem: string | undefined): KeyObject | undefined {
  if (pem === undefined) return undefined;
  try {
    return createPrivateKey(pem);
  } catch {
    return undefined;
  }
}

function usableUntil(cert: X509Certificate, marginMs: number): boolean {
  const now = Date.now();
  return new Date(cert.validFrom).getTime() <= now + BACKDATE_MS && new Date(cert.validTo).getTime() > now + marginMs;
}

function leafIsGood(certPem: string | undefined, keyPem: string | undefined, ca: X509Certificate, check?: (cert: X509Certificate) => boolean): boolean {
  const cert = parseCert(certPem);
  const key = parseKey(keyPem);
  if (!cert || !key) return false;
  if (!usableUntil(cert, RENEW_BEFORE_MS)) return false;
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
  if (!cert.checkPrivateKey(key)) return false;
  return check ? check(cert) : true;
}

/**
 * Whether a name with a colon is an IPv6 address, as the C library reads one (inet_pton, through
 * SocketAddress). Not node:net's isIPv6: its pattern is compiled at its first use, ~8 ms of every
 * start here, for the one default name with a colon (::1).
 */
function isIPv6Literal(name: string): boolean {
  try {
    new SocketAddress({ address: name, family: 'ipv6' });
    return true;
  } catch {
    return false;
  }
}

/** Splits names into DNS names and IP addresses, lower-cased and without duplicates. */
export function servingNames(extraNames: string[]): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  let host = '';
  try {
    host = hostname().toLowerCase();
  } catch {
    host = '';
  }
  const all = [...DEFAULT_SERVING_NAMES.slice(0, 3), ...(host ? [host] : []), ...extraNames, ...DEFAULT_SERVING_NAMES.slice(3)];
  for (const raw of all) {
    const name = raw.trim().replace(/^\[(.*)\]$/, '$1');
    if (!name) continue;
    if (name.includes(':') ? isIPv6Literal(name) : isIPv4(name)) {
      if (!ipAddresses.includes(name)) ipAddresses.push(name);
    } else {
      const lower = name.toLowerCase();
      if (!dnsNames.includes(lower)) dnsNames.push(lower);
    }
  }
  return { dnsNames, ipAddresses };
}

/** The bind addresses that mean "every address of the host". */
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * The names a serving certificate is asked for beyond the defaults (loopback, the host name, the
 * in-cluster names): the advertise address, the bind address — or, when it is a wildcard, every
 * address of the host's interfaces (IPv4 ones for 0.0.0.0), since clients may come to any — and
 * the operator's extra names.
 */
export function requestedServingNames(o: { advertiseAddress?: string; bindAddress: string; extraNames?: readonly string[] }): string[] {
  const names: string[] = [];
  if (o.advertiseAddress) names.push(o.advertiseAddress);
  if (!WILDCARDS.has(o.bindAddress)) {
    names.push(o.bindAddress);
  } else {
    const ipv4Only = o.bindAddress !== '::';
    for (const addresses of Object.values(networkInterfaces())) {
      for (const a of addresses ?? []) {
        if (a.internal || (ipv4Only && a.family !== 'IPv4')) continue;
        // Link-local IPv6 addresses need a zone to be reached; no certificate names them.
        if (a.family === 'IPv6' && /^fe[89ab]/i.test(a.address)) continue;
        names.push(a.address);
      }
    }
  }
  return [...names, ...(o.extraNames ?? [])];
}

function coversNames(cert: X509Certificate, names: { dnsNames: string[]; ipAddresses: string[] }): boolean {
  for (const dns of names.dnsNames) if (cert.checkHost(dns, { wildcards: false, subject: 'never' }) === undefined) return false;
  for (const ip of names.ipAddresses) if (cert.checkIP(ip) === undefined) return false;
  return true;
}

function subjectIs(cert: X509Certificate, cn: string, o: string): boolean {
  const lines = cert.subject.split('\n');
  return lines.includes(`CN=${cn}`) && lines.includes(`O=${o}`);
}

/**
 * Creates (first start) or loads (later starts) in certDir: a self-signed CA ("capstan-ca"),
 * a serving certificate signed by it for localhost, 127.0.0.1, ::1, the host name, extraNames
 * and the in-cluster names (kubernetes, kubernetes.default, …svc, …svc.cluster.local,
 * 10.96.0.1), an admin client certificate (CN=kubernetes-admin, O=system:masters), and the
 * service-account signing key pair. Every file is written with mode 0600 (certificates too: the data dir is private, issue 14).
 *
 * Idempotent: files that are present and valid are returned byte for byte. A leaf that is
 * missing, unreadable, expiring within a day, not issued by the CA, not matching its key, or
 * (the serving certificate) not covering a requested name is issued again from the existing
 * CA. A CA certificate without its key is an error (regenerating it would orphan every
 * kubeconfig that trusts it); a CA key and certificate provided by the operator (RSA or
 * ECDSA) are used as they are.
 */
export async function ensureServingMaterial(certDir: string, extraNames: string[]): Promise<ServingMaterial> {
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const path = (file: keyof ServingMaterial) => join(certDir, CERT_FILES[file]);
  const [caCertPem, caKeyPem, serverCertPem, serverKeyPem, adminCertPem, adminKeyPem, saKeyPem, saPubPem] = await Promise.all(
    (Object.keys(CERT_FILES) as Array<keyof ServingMaterial>).map((k) => readIfExists(path(k))),
  );

  const material: Partial<ServingMaterial> = {};

  // CA.
  let caCert = parseCert(caCertPem);
  const caKey = parseKey(caKeyPem);
  if (caCertPem !== undefined || caKeyPem !== undefined) {
    if (!caCert || !caKey) {
      throw new Error(`${certDir}: ${CERT_FILES.caCert} and ${CERT_FILES.caKey} must both be present and readable (remove both to start a new CA)`);
    }
    if (!caCert.ca) throw new Error(`${path('caCert')} is not a CA certificate`);
    if (!caCert.checkPrivateKey(caKey)) throw new Error(`${path('caKey')} does not match ${path('caCert')}`);
    if (!usableUntil(caCert, 0)) throw new Error(`${path('caCert')} has expired (valid until ${caCert.validTo})`);
    material.caCert = caCertPem;
    material.caKey = caKeyPem;
  } else {
    const ca = await createCa();
    await writeAtomic(path('caKey'), ca.key, 0o600);
    await writeAtomic(path('caCert'), ca.cert, 0o600);
    material.caCert = ca.cert;
    material.caKey = ca.key;
    caCert = new X509Certificate(ca.cert);
  }
  const ca = caCert!;

  // Serving certificate.
  const names = servingNames(extraNames);
  if (leafIsGood(serverCertPem, serverKeyPem, ca, (cert) => coversNames(cert, names))) {
    material.serverCert = serverCertPem;
    material.serverKey = serverKeyPem;
  } else {
    const leaf = await issueLeaf(material.caCert!, material.caKey!, {
      commonName: SERVER_COMMON_NAME,
      dnsNames: names.dnsNames,
      ipAddresses: names.ipAddresses,
      usage: 'server',
      days: LEAF_DAYS,
    });
    await writeAtomic(path('serverKey'), leaf.key, 0o600);
    await writeAtomic(path('serverCert'), leaf.cert, 0o600);
    material.serverCert = leaf.cert;
    material.serverKey = leaf.key;
  }

  // Admin client certificate.
  if (leafIsGood(adminCertPem, adminKeyPem, ca, (cert) => subjectIs(cert, ADMIN_USER, ADMIN_GROUP))) {
    material.adminCert = adminCertPem;
    material.adminKey = adminKeyPem;
  } else {
    const leaf = await issueLeaf(material.caCert!, material.caKey!, {
      commonName: ADMIN_USER,
      organizations: [ADMIN_GROUP],
      usage: 'client',
      days: LEAF_DAYS,
    });
    await writeAtomic(path('adminKey'), leaf.key, 0o600);
    await writeAtomic(path('adminCert'), leaf.cert, 0o600);
    material.adminCert = leaf.cert;
    material.adminKey = leaf.key;
  }

  // Service-account signing key pair.
  const saKey = parseKey(saKeyPem);
  if (saKey && saKeyPem !== undefined) {
    material.serviceAccountKey = saKeyPem;
    const derived = createPublicKey(saKey).export({ type: 'spki', format: 'pem' }) as string;
    let pubMatches = false;
    if (saPubPem !== undefined) {
      try {
        pubMatches = createPublicKey(saPubPem).equals(createPublicKey(saKey));
      } catch {
        pubMatches = false;
      }
    }
    if (pubMatches) {
      material.serviceAccountPublicKey = saPubPem;
    } else {
      await writeAtomic(path('serviceAccountPublicKey'), derived, 0o600);
      material.serviceAccountPublicKey = derived;
    }
  } else {
    const key = await generateEcKey();
    await writeAtomic(path('serviceAccountKey'), key.privatePem, 0o600);
    await writeAtomic(path('serviceAccountPublicKey'), key.publicPem, 0o600);
    material.serviceAccountKey = key.privatePem;
    material.serviceAccountPublicKey = key.publicPem;
  }

  return material as ServingMaterial;
}

/** A client certificate for a user (CN) and groups (one O each), signed by the CA — for tests and kubeconfigs. Not written to disk. */
export async function issueClientCertificate(
  material: ServingMaterial,
  user: string,
  groups: string[],
  days = LEAF_DAYS,
): Promise<{ cert: string; key: string }> {
  return issueLeaf(material.caCert, material.caKey, { commonName: user, organizations: groups, usage: 'client', days });
}

/** What a signer puts in a certificate it issues for a CertificateSigningRequest. */
export interface CsrSigning {
  /** spec.usages: "client auth", "server auth", "digital signature", "key encipherment", … */
  usages: string[];
  /** How long the certificate lasts (spec.expirationSeconds, capped by the signer). */
  durationSeconds: number;
}

const KEY_USAGE_BITS: Record<string, keyof X509Module['KeyUsageFlags']> = {
  'digital signature': 'digitalSignature', 'content commitment': 'nonRepudiation', 'key encipherment': 'keyEncipherment',
  'data encipherment': 'dataEncipherment', 'key agreement': 'keyAgreement', 'cert sign': 'keyCertSign', 'crl sign': 'cRLSign',
  'encipher only': 'encipherOnly', 'decipher only': 'decipherOnly',
};

const EXTENDED_USAGES: Record<string, string> = {
  'server auth': '1.3.6.1.5.5.7.3.1', 'client auth': '1.3.6.1.5.5.7.3.2', 'code signing': '1.3.6.1.5.5.7.3.3',
  'email protection': '1.3.6.1.5.5.7.3.4', 'timestamping': '1.3.6.1.5.5.7.3.8', 'ocsp signing': '1.3.6.1.5.5.7.3.9',
};

/**
 * Signs a PKCS#10 request (PEM) with the CA: the request's subject, public key and SANs, the
 * requested usages. Throws when the request does not parse or its signature is wrong.
 */
export async function signCertificateRequest(material: Pick<ServingMaterial, 'caCert' | 'caKey'>, requestPem: string, signing: CsrSigning): Promise<string> {
  const x509 = await loadX509();
  const csr = new x509.Pkcs10CertificateRequest(requestPem);
  if (!(await csr.verify())) throw new Error('the certificate request signature is not valid');
  const ca = new x509.X509Certificate(material.caCert);
  const signer = await importSigningKey(material.caKey);
  const publicKey = await csr.publicKey.export();
  let keyUsage = 0;
  for (const u of signing.usages) {
    const flag = KEY_USAGE_BITS[u];
    if (flag) keyUsage |= x509.KeyUsageFlags[flag] as number;
  }
  const extended = signing.usages.map((u) => EXTENDED_USAGES[u]).filter((oid): oid is string => oid !== undefined);
  const extensions: InstanceType<X509Module['Extension']>[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(ca, false),
  ];
  if (keyUsage) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extended.length) extensions.push(new x509.ExtendedKeyUsageExtension(extended, false));
  // Subject alternative names travel from the request as they are (DER of the extension's value).
  const san = csr.extensions.find((e) => e.type === '2.5.29.17');
  if (san) extensions.push(san);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: csr.subjectName,
    issuer: ca.subjectName,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + signing.durationSeconds * 1000),
    publicKey,
    signingKey: signer.key,
    signingAlgorithm: signer.alg,
    extensions,
  });
  return cert.toString('pem') + '\n';
}

/** The front proxy's CA and the client certificate capstan calls extension API servers with. */
export interface FrontProxyMaterial {
  caCert: string;
  caKey: string;
  clientCert: string;
  clientKey: string;
}

/** kubeadm's names for them. */
export const FRONT_PROXY_FILES = {
  caCert: 'front-proxy-ca.crt',
  caKey: 'front-proxy-ca.key',
  clientCert: 'front-proxy-client.crt',
  clientKey: 'front-proxy-client.key',
} as const satisfies Record<keyof FrontProxyMaterial, string>;

export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

/**
 * capstan's own front-proxy CA and client certificate in certDir (0600 files), made when missing
 * or no longer good; used when --requestheader-client-ca-file and --proxy-client-* are not given.
 */
export async function ensureFrontProxyMaterial(certDir: string): Promise<FrontProxyMaterial> {
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  const path = (file: keyof FrontProxyMaterial) => join(certDir, FRONT_PROXY_FILES[file]);
  let caCert = await readIfExists(path('caCert'));
  let caKey = await readIfExists(path('caKey'));
  let ca = parseCert(caCert);
  const key = parseKey(caKey);
  if (!ca || !key || !ca.ca || !ca.checkPrivateKey(key) || !usableUntil(ca, RENEW_BEFORE_MS)) {
    const made = await createCa('front-proxy-ca');
    await writeAtomic(path('caKey'), made.key, 0o600);
    await writeAtomic(path('caCert'), made.cert, 0o600);
    caCert = made.cert;
    caKey = made.key;
    ca = new X509Certificate(made.cert);
  }
  let clientCert = await readIfExists(path('clientCert'));
  let clientKey = await readIfExists(path('clientKey'));
  if (!leafIsGood(clientCert, clientKey, ca, (cert) => cert.subject.split('\n').includes(`CN=${FRONT_PROXY_CLIENT_NAME}`))) {
    const leaf = await issueLeaf(caCert!, caKey!, { commonName: FRONT_PROXY_CLIENT_NAME, usage: 'client', days: LEAF_DAYS });
    await writeAtomic(path('clientKey'), leaf.key, 0o600);
    await writeAtomic(path('clientCert'), leaf.cert, 0o600);
    clientCert = leaf.cert;
    clientKey = leaf.key;
  }
  return { caCert: caCert!, caKey: caKey!, clientCert: clientCert!, clientKey: clientKey! };
}

/** A CA of its own, not written anywhere (tests make their extension servers' with it). */
export function newCertificateAuthority(commonName: string): Promise<{ cert: string; key: string }> {
  return createCa(commonName);
}

/** A certificate signed by `ca`: a server's for names, or a client's for a user (CN) and groups (O). */
export function issueCertificate(
  ca: { cert: string; key: string },
  request: { commonName: string; organizations?: string[]; dnsNames?: string[]; ipAddresses?: string[]; usage: 'server' | 'client' },
): Promise<{ cert: string; key: string }> {
  return issueLeaf(ca.cert, ca.key, { ...request, days: LEAF_DAYS });
}
