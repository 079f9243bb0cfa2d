// The aggregation layer's wiring: the front-proxy identity from the flags (or capstan's own CA and
// client certificate in the cert dir), the aggregator the routes ask, and what the
// extension-apiserver-authentication ConfigMap publishes.
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { Aggregator } from '../aggregator/aggregator.js';
import { authenticationInfo, DEFAULT_HEADERS, type FrontProxyConfig } from '../aggregator/front-proxy.js';
import type { AggregatorMetrics } from '../metrics/aggregator.js';
import type { Registry } from '../registry/store.js';
import type { RequestHeaderOptions } from '../auth/request-header.js';
import { ensureFrontProxyMaterial, FRONT_PROXY_CLIENT_NAME, type ServingMaterial } from './certs.js';
import type { HookContext } from './hooks.js';
import { sharedPkiDir } from './shared-pki.js';
import type { Options } from './options.js';

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--${flag} ${path}: ${(err as Error).message}`);
  }
}

/**
 * Where capstan's own front-proxy files live: the cert dir; for test servers given the shared TLS
 * material, beside it (made once for all of them, as the rest of it).
 */
function frontProxyDir(options: Options): string {
  if (options.certDir) return options.certDir;
  return options.servingMaterial ? sharedPkiDir() : `${options.dataDir}/pki`;
}

/** The front proxy's CA, client certificate and header names; none on plain HTTP. */
export async function frontProxyConfig(options: Options, material: ServingMaterial | undefined): Promise<FrontProxyConfig | undefined> {
  if (!material) return undefined;
  const headers = {
    usernameHeaders: options.requestheaderUsernameHeaders.length > 0 ? options.requestheaderUsernameHeaders : [...DEFAULT_HEADERS.usernameHeaders],
    groupHeaders: options.requestheaderGroupHeaders.length > 0 ? options.requestheaderGroupHeaders : [...DEFAULT_HEADERS.groupHeaders],
    extraHeadersPrefixes: options.requestheaderExtraHeadersPrefix.length > 0 ? options.requestheaderExtraHeadersPrefix : [...DEFAULT_HEADERS.extraHeadersPrefixes],
  };
  if (Boolean(options.proxyClientCertFile) !== Boolean(options.proxyClientKeyFile)) {
    throw new Error('--proxy-client-cert-file and --proxy-client-key-file are given together');
  }
  // What is not given is capstan's own: its front-proxy CA, its client certificate.
  const own = options.requestheaderClientCaFile && options.proxyClientCertFile ? undefined : await ensureFrontProxyMaterial(frontProxyDir(options));
  const requestheaderCa = options.requestheaderClientCaFile ? readFlagFile('requestheader-client-ca-file', options.requestheaderClientCaFile) : own!.caCert;
  let clientCert = own?.clientCert ?? '';
  let clientKey = own?.clientKey ?? '';
  if (options.proxyClientCertFile && options.proxyClientKeyFile) {
    clientCert = readFlagFile('proxy-client-cert-file', options.proxyClientCertFile);
    clientKey = readFlagFile('proxy-client-key-file', options.proxyClientKeyFile);
    try {
      if (!new X509Certificate(clientCert).checkPrivateKey(createPrivateKey(clientKey))) throw new Error('not the key of the certificate');
    } catch (err) {
      throw new Error(`--proxy-client-key-file ${options.proxyClientKeyFile}: ${(err as Error).message}`);
    }
  }
  // capstan's own front proxy is named front-proxy-client; a given CA's names are the operator's to give.
  const allowedNames = options.requestheaderAllowedNames.length > 0 || options.requestheaderClientCaFile ? options.requestheaderAllowedNames : [FRONT_PROXY_CLIENT_NAME];
  return { requestheaderCa, clientCert, clientKey, allowedNames, ...headers };
}

/** The aggregation part of the hooks' context; undefined when APIServices are not served. */
export async function setUpAggregation(
  options: Options, registry: Registry, material: ServingMaterial | undefined, clientCa: string | undefined, metrics?: AggregatorMetrics,
): Promise<HookContext['aggregation']> {
  const config = await frontProxyConfig(options, material);
  const aggregator = await Aggregator.create(registry, config, { responseTimeoutMs: options.requestTimeoutMs, recheckMs: options.apiServiceRecheckMs }, metrics);
  if (!aggregator) return undefined;
  const clientCas = [clientCa, material?.caCert].filter((c): c is string => c !== undefined).join('');
  return { aggregator, ...(config ? { authenticationInfo: authenticationInfo(clientCas || undefined, config) } : {}) };
}

/** Each certificate of a PEM bundle. */
function certificatesOf(flag: string, path: string, pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`--${flag} ${path}: no PEM certificate in it`);
  return blocks.map((b) => new X509Certificate(b));
}

/**
 * Front-proxy authentication of requests to capstan itself, when --requestheader-client-ca-file is
 * given: the options, and the CA's PEM for the listener to verify such certificates with.
 */
export function requestHeaderAuthentication(options: Options, clientCa: string | undefined, material: ServingMaterial | undefined): { options: RequestHeaderOptions; caPem: string } | undefined {
  if (!options.requestheaderClientCaFile || !material) return undefined;
  const caPem = readFlagFile('requestheader-client-ca-file', options.requestheaderClientCaFile);
  const clientCas = [...(clientCa ? certificatesOf('client-ca-file', options.clientCaFile ?? '', clientCa) : []), new X509Certificate(material.caCert)];
  return {
    caPem,
    options: {
      cas: certificatesOf('requestheader-client-ca-file', options.requestheaderClientCaFile, caPem),
      clientCas,
      allowedNames: options.requestheaderAllowedNames,
      usernameHeaders: options.requestheaderUsernameHeaders.length > 0 ? options.requestheaderUsernameHeaders : [...DEFAULT_HEADERS.usernameHeaders],
      groupHeaders: options.requestheaderGroupHeaders.length > 0 ? options.requestheaderGroupHeaders : [...DEFAULT_HEADERS.groupHeaders],
      extraHeadersPrefixes: options.requestheaderExtraHeadersPrefix.length > 0 ? options.requestheaderExtraHeadersPrefix : [...DEFAULT_HEADERS.extraHeadersPrefixes],
    },
  };
}
