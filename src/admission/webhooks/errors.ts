// The failures of a webhook call and how the reference answers them: a call that failed (subject
// to failurePolicy), a denial (the webhook's own Status), and a dry run the webhook cannot take.
import { badRequest, internalError, StatusError, type StatusDetails } from '../../errors.js';
import { type JsonObject, isObject } from '../../json.js';

/** The webhook could not be called or answered nonsense: failurePolicy decides what follows. */
export class WebhookCallError extends Error {
  constructor(readonly webhookName: string, reason: string) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
  }

  /** What the client gets when the webhook fails closed: 500 InternalError. */
  toStatusError(): StatusError {
    return internalError(this.message);
  }
}

/** A denial: the webhook's Status, its message prefixed, its code at least 400. */
export function denial(webhookName: string, result: unknown): StatusError {
  const status: JsonObject = isObject(result) ? result : {};
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const message = typeof status['message'] === 'string' ? status['message'] : '';
  const reason = typeof status['reason'] === 'string' ? status['reason'] : '';
  const text = message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const code = typeof status['code'] === 'number' && status['code'] >= 400 ? status['code'] : 400;
  const details = isObject(status['details']) ? (status['details'] as StatusDetails) : undefined;
  const error = new StatusError(code, reason || undefined, text, details);
  if (isObject(status['metadata'])) error.metadata = status['metadata'];
  return error;
}

export function dryRunUnsupported(webhookName: string): StatusError {
  return badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}
