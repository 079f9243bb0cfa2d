// The audit flags read into an auditor (audit/auditor.ts): none when no policy is given.
import { openAuditor, type Auditor } from '../audit/auditor.js';
import type { Options } from './options.js';

export function startAuditing(o: Options): Promise<Auditor | undefined> {
  return openAuditor({
    policyFile: o.auditPolicyFile, logPath: o.auditLogPath, logFormat: o.auditLogFormat, logMode: o.auditLogMode,
    logMaxAge: o.auditLogMaxAge, logMaxBackup: o.auditLogMaxBackup, logMaxSize: o.auditLogMaxSize, logCompress: o.auditLogCompress,
    logBatchBufferSize: o.auditLogBatchBufferSize, logBatchMaxSize: o.auditLogBatchMaxSize,
    webhook: {
      configFile: o.auditWebhookConfigFile, mode: o.auditWebhookMode, bufferSize: o.auditWebhookBatchBufferSize,
      maxBatchSize: o.auditWebhookBatchMaxSize, maxWaitMs: o.auditWebhookBatchMaxWaitMs, initialBackoffMs: o.auditWebhookInitialBackoffMs,
      throttle: { enabled: o.auditWebhookBatchThrottleEnable, qps: o.auditWebhookBatchThrottleQps, burst: o.auditWebhookBatchThrottleBurst },
    },
  });
}
