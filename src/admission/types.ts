// The shapes of the admission chain: what a plugin is told about a write, and what it may do.
import type { Authorizer } from '../auth/types.js';
import type { UserInfo } from '../api/user.js';
import type { AdmissionMetrics, WebhookLatencies } from '../metrics/admission.js';
import type { Registry, WriteTarget } from '../registry/store.js';
import { type JsonObject } from '../json.js';

import type { Operation } from '../api/operation.js';
export type { Operation };

/** One write as admission sees it (the reference's admission.Attributes). */
export interface AdmissionAttributes extends WriteTarget {
  /** The object to be written (mutating plugins change it in place); absent for DELETE. */
  object?: JsonObject;
  /** The stored object for UPDATE and DELETE. */
  oldObject?: JsonObject;
  user: UserInfo;
  /** Warnings for the client (sent as `Warning: 299 - "…"` headers). */
  warnings: string[];
  /** Audit annotations plugins add ("key" → "value"). */
  annotations: Record<string, string>;
  /** Where the request's time in webhook calls adds up (when metrics are on). */
  webhookLatencies?: WebhookLatencies;
}

/**
 * What plugins may use: the registry (to read objects such as LimitRanges or quotas) and the
 * authorizer (for plugins that ask whether the user may do more, such as approving a CSR; set by the
 * server once security is built).
 */
export interface AdmissionServices {
  registry: Registry;
  authorizer?: Authorizer;
  /** Where the chain's, its plugins' and webhooks' latencies go (none when metrics are off). */
  metrics?: AdmissionMetrics;
}

/**
 * A built-in admission plugin or a webhook dispatcher. `mutate` runs in the mutating phase (it may
 * change `attributes.object`), `validate` in the validating phase; either throws a StatusError to refuse.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /**
   * The operations the plugin handles (the reference's Handles); the chain neither runs nor
   * measures it for others. Absent: every operation.
   */
  readonly operations?: readonly Operation[];
  mutate?(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> | void;
  validate?(attributes: AdmissionAttributes, services: AdmissionServices): Promise<void> | void;
}
