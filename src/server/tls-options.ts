// --tls-min-version and --tls-cipher-suites as kube-apiserver takes them (Go's names for TLS
// versions and cipher suites, its messages for a name it does not know), and what they become
// for Node's TLS server (OpenSSL's names).

/** Go's version names, and Node's for each. Without the flag the minimum is TLS 1.2 (Go's default for the reference). */
const VERSIONS: Readonly<Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/**
 * Every suite name the reference accepts (Go 1.19's tls.CipherSuites and InsecureCipherSuites,
 * and two legacy names), with OpenSSL's name. TLS 1.3 suites map to nothing: Go does not let
 * them be chosen (they are always on), so neither does capstan.
 */
const SUITES: Readonly<Record<string, string | null>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_AES_128_GCM_SHA256: null,
  TLS_AES_256_GCM_SHA384: null,
  TLS_CHACHA20_POLY1305_SHA256: null,
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  // Insecure, and accepted all the same.
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

/** The TLS 1.3 suites, always on (as Go keeps them). */
const TLS13_SUITES = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256';

export const TLS_VERSION_NAMES = Object.keys(VERSIONS);

/** A --tls-min-version value, checked; throws the reference's message for a name it does not know. */
export function checkTlsVersion(name: string): string {
  if (name !== '' && !Object.hasOwn(VERSIONS, name)) throw new Error(`unknown tls version "${name}"`);
  return name;
}

/** --tls-cipher-suites names, checked; throws the reference's message for the first it does not know. */
export function checkCipherSuites(names: string[]): string[] {
  for (const name of names) if (!Object.hasOwn(SUITES, name)) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
  return names;
}

/** Node's TLS options for the flags: the minimum version, and the suites (Node's defaults when none are named). */
export function nodeTlsOptions(minVersion: string, suites: string[]): { minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'; ciphers?: string } {
  const options: { minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'; ciphers?: string } = { minVersion: VERSIONS[minVersion || 'VersionTLS12']! };
  const chosen = [...new Set(suites.map((s) => SUITES[s]).filter((s): s is string => typeof s === 'string'))];
  if (suites.length) options.ciphers = [TLS13_SUITES, ...chosen].join(':');
  return options;
}
