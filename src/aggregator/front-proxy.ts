// The front proxy's identity: who capstan says the user is when it calls an extension API server
// (its own client certificate, and the user in request headers), and the
// extension-apiserver-authentication ConfigMap that tells extension servers what to trust.
import type { UserInfo } from '../api/user.js';
import { isRequestHeader, type RequestHeaderNames } from '../auth/request-header.js';
import { StatusError } from '../errors.js';
import { jsonEqual, type JsonObject } from '../json.js';
import type { Registry } from '../registry/store.js';
import { AGGREGATOR_WRITER } from './apiservice-objects.js';

export interface FrontProxyConfig extends RequestHeaderNames {
  /** PEM of the CA that signs front-proxy client certificates (--requestheader-client-ca-file, or capstan's own). */
  readonly requestheaderCa: string;
  /** The client certificate and key capstan presents to extension servers. */
  readonly clientCert: string;
  readonly clientKey: string;
  readonly allowedNames: readonly string[];
}

/** What capstan uses when the --requestheader-*-headers flags are not given (kubeadm's values). */
export const DEFAULT_HEADERS = {
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeadersPrefixes: ['X-Remote-Extra-'],
} as const;

/** Whether a request header is one of the front proxy's (a client's own is never passed on). */
export function isIdentityHeader(name: string, config: FrontProxyConfig): boolean {
  return isRequestHeader(name, config);
}

/** The headers that tell an extension server who the user is: the first of each configured name. */
export function identityHeaders(user: UserInfo, config: FrontProxyConfig): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  const userHeader = config.usernameHeaders[0];
  if (userHeader) headers[userHeader] = user.name;
  const groupHeader = config.groupHeaders[0];
  if (groupHeader && user.groups.length > 0) headers[groupHeader] = [...user.groups];
  const prefix = config.extraHeadersPrefixes[0];
  if (prefix) {
    for (const [key, values] of Object.entries(user.extra ?? {})) {
      // Keys are escaped as the reference's: lowercase, and anything outside a URL's unreserved set percent-encoded.
      headers[`${prefix}${escapeExtraKey(key)}`] = [...values];
    }
  }
  return headers;
}

function escapeExtraKey(key: string): string {
  return encodeURIComponent(key.toLowerCase()).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const CONFIGMAP_NAMESPACE = 'kube-system';
const CONFIGMAP_NAME = 'extension-apiserver-authentication';

/** The ConfigMap's data, as the reference publishes it: the CAs as PEM, the rest as JSON lists. */
export function authenticationInfo(clientCa: string | undefined, config: FrontProxyConfig): Record<string, string> {
  return {
    ...(clientCa ? { 'client-ca-file': clientCa } : {}),
    'requestheader-allowed-names': JSON.stringify(config.allowedNames),
    'requestheader-client-ca-file': config.requestheaderCa,
    'requestheader-extra-headers-prefix': JSON.stringify(config.extraHeadersPrefixes),
    'requestheader-group-headers': JSON.stringify(config.groupHeaders),
    'requestheader-username-headers': JSON.stringify(config.usernameHeaders),
  };
}

/**
 * Writes kube-system/extension-apiserver-authentication (the reference's
 * start-cluster-authentication-info-controller), and puts it back when changed or deleted.
 */
export class AuthenticationInfoPublisher {
  private unsubscribe: (() => void) | undefined;
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly registry: Registry, private readonly data: Record<string, string>) {}

  async start(): Promise<void> {
    await this.publish();
    const info = this.registry.definitions.lookup('', 'v1', 'configmaps')!;
    const informer = await this.registry.informer(info);
    const changed = (o: { namespace?: string; name: string }) => {
      if (o.namespace === CONFIGMAP_NAMESPACE && o.name === CONFIGMAP_NAME) this.busy = this.busy.then(() => this.publish()).catch((err: unknown) => console.error('extension-apiserver-authentication:', err));
    };
    const subscription = informer.subscribe({ updated: changed, deleted: changed }, { replay: false });
    this.unsubscribe = () => subscription.stop();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.busy;
  }

  private async publish(): Promise<void> {
    const info = this.registry.definitions.lookup('', 'v1', 'configmaps')!;
    const current = await this.registry.getObject(info, CONFIGMAP_NAMESPACE, CONFIGMAP_NAME);
    try {
      if (!current) {
        await this.registry.create(info, CONFIGMAP_NAMESPACE, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CONFIGMAP_NAME, namespace: CONFIGMAP_NAMESPACE }, data: this.data }, AGGREGATOR_WRITER);
      } else if (!jsonEqual(current.data, this.data)) {
        await this.registry.update(info, CONFIGMAP_NAMESPACE, CONFIGMAP_NAME, { ...current, data: this.data } as JsonObject, undefined, AGGREGATOR_WRITER);
      }
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }
}
