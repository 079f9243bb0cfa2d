// The audit policy and the backends together, as the audit filter uses them; and how they are
// made from the flags (--audit-policy-file, --audit-log-*), each problem one line naming its flag.
import { readFileSync } from 'node:fs';
import { unionBackend, type AuditBackend, type BackendMode } from './backend.js';
import { LogBackend, type LogFormat } from './log-backend.js';
import { readWebhookConfig, WebhookBackend, type WebhookOptions } from './webhook-backend.js';
import { parsePolicy, PolicyError, PolicyEvaluator, type Stage } from './policy.js';
import { nowMicros, type AuditRecord } from './record.js';

export class Auditor {
  constructor(
    readonly policy: PolicyEvaluator,
    private readonly backend: AuditBackend,
    /** blocking-strict: a RequestReceived event that cannot be taken fails its request. */
    readonly strict: boolean,
  ) {}

  /** Sends the event at `stage` unless the policy leaves the stage out; false when it was not taken. */
  emit(record: AuditRecord, stage: Stage): boolean {
    const omit = record.config.omitStages;
    if (omit.size !== 0 && omit.has(stage)) return true;
    const micros = stage === 'RequestReceived' ? record.facts.receivedMicros : nowMicros();
    return this.backend.process(record, stage, micros);
  }

  /** Writes what is queued. */
  close(): Promise<void> {
    return this.backend.close();
  }
}

export interface AuditSettings {
  policyFile?: string;
  logPath?: string;
  logFormat: LogFormat;
  logMode: BackendMode;
  logMaxAge: number;
  logMaxBackup: number;
  logMaxSize: number;
  logCompress: boolean;
  logBatchBufferSize: number;
  logBatchMaxSize: number;
  webhook?: Omit<WebhookOptions, 'configFile'> & { configFile?: string };
}

const READ_FAILURES: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'is a folder' };

/** The policy in `path`; throws one line naming the flag, the file and the problem. */
export function loadPolicy(path: string): PolicyEvaluator {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    throw new Error(`--audit-policy-file ${path}: ${READ_FAILURES[code] ?? (err as Error).message}`);
  }
  try {
    return new PolicyEvaluator(parsePolicy(text));
  } catch (err) {
    if (err instanceof PolicyError) throw new Error(`--audit-policy-file ${path}: ${err.message}`);
    throw err;
  }
}

/**
 * The auditor the settings ask for, or none (nothing is audited) when no policy is given or no
 * backend, as the reference: a policy without a backend, or a backend without a policy, records nothing.
 */
export async function openAuditor(s: AuditSettings): Promise<Auditor | undefined> {
  if (!s.policyFile) return undefined;
  const policy = loadPolicy(s.policyFile);
  const backends: AuditBackend[] = [];
  let strict = false;
  const webhook = s.webhook;
  if (webhook?.configFile) {
    let target;
    try {
      target = readWebhookConfig(webhook.configFile);
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      throw new Error(`--audit-webhook-config-file ${webhook.configFile}: ${READ_FAILURES[code] ?? (err as Error).message}`);
    }
    backends.push(new WebhookBackend(target, { ...webhook, configFile: webhook.configFile }));
    strict = webhook.mode === 'blocking-strict';
  }
  if (s.logPath) {
    const log = new LogBackend({
      path: s.logPath, format: s.logFormat, maxSizeMb: s.logMaxSize, maxBackups: s.logMaxBackup, maxAgeDays: s.logMaxAge,
      compress: s.logCompress, bufferSize: s.logBatchBufferSize, maxBatchSize: s.logBatchMaxSize,
    });
    try {
      await log.open();
    } catch (err) {
      throw new Error(`--audit-log-path ${s.logPath}: ${READ_FAILURES[(err as { code?: string }).code ?? ''] ?? (err as Error).message}`);
    }
    backends.unshift(log);
    strict ||= s.logMode === 'blocking-strict';
  }
  if (backends.length === 0) return undefined;
  return new Auditor(policy, unionBackend(backends), strict);
}
