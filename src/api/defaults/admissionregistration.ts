// Defaults of admissionregistration.k8s.io/v1 webhook configurations.
import { objectAtPath, objectsAt, setIfNil, type Obj } from './fields.js';

function defaultWebhook(webhook: Obj): void {
  setIfNil(webhook, 'failurePolicy', 'Fail');
  setIfNil(webhook, 'matchPolicy', 'Equivalent');
  // An empty selector matches everything.
  setIfNil(webhook, 'namespaceSelector', {});
  setIfNil(webhook, 'objectSelector', {});
  setIfNil(webhook, 'timeoutSeconds', 10);
  for (const rule of objectsAt(webhook, 'rules')) setIfNil(rule, 'scope', '*');
  const service = objectAtPath(webhook, 'clientConfig', 'service');
  if (service) setIfNil(service, 'port', 443);
}

function defaultWebhooks(configuration: Obj, mutating: boolean): void {
  for (const webhook of objectsAt(configuration, 'webhooks')) {
    defaultWebhook(webhook);
    if (mutating) setIfNil(webhook, 'reinvocationPolicy', 'Never');
  }
}

export const defaultMutatingWebhookConfiguration = (obj: Obj): void => defaultWebhooks(obj, true);
export const defaultValidatingWebhookConfiguration = (obj: Obj): void => defaultWebhooks(obj, false);
