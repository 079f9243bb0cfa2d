// MutatingAdmissionWebhook: the mutating webhooks that select a request are called one after the
// other (configurations by name, webhooks in order); each may answer with a JSONPatch, applied to
// the object the next one sees. When a webhook changed the object, the earlier webhooks with
// reinvocationPolicy IfNeeded are called once more, in a second round.
import type { ResourceInfo } from '../../registry/definitions.js';
import { internalError, StatusError } from '../../errors.js';
import { applyJsonPatch } from '../../fieldmanager/jsonpatch.js';
import { canonical } from '../../registry/objects.js';
import type { AdmissionMetrics } from '../../metrics/admission.js';
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { addAnnotation, failedOpenMutationKey, mutationKey, mutationValue, patchKey, patchValue } from './annotations.js';
import { callWebhook } from './call.js';
import { jsonErrorText } from '../../registry/webhook-client.js';
import type { Webhook } from './config.js';
import { WebhookCallError } from './errors.js';
import { isWebhookConfiguration } from './exempt.js';
import type { Invocation } from './rules.js';
import { Selection } from './selection.js';
import { webhookSource } from './source.js';
import { objectsIn, requestObjects, writeBack, type ReviewObjects } from './versioned.js';
import { isObject, jsonEqual } from '../../json.js';

/** The reason a patch could not be applied, as the 500 the reference answers carries it. */
function patchFailure(err: unknown): StatusError {
  if (err instanceof StatusError) return internalError(err.details?.causes?.[0]?.message ?? err.message);
  return internalError(err instanceof Error ? err.message : String(err));
}

class MutatingDispatch {
  private readonly selection: Selection;
  /** The objects as the next webhook will see them, in the version `version`. */
  private objects: ReviewObjects = {};
  private version: ResourceInfo;
  private patched = false;
  private changedInRound0 = false;
  /** IfNeeded webhooks called since the object last changed; they are reinvoked if it changes again. */
  private previouslyInvoked = new Set<string>();
  private readonly reinvoke = new Set<string>();

  constructor(private readonly registry: Registry, private readonly attrs: AdmissionAttributes, private readonly hooks: readonly Webhook[], private readonly metrics: AdmissionMetrics | undefined) {
    this.selection = new Selection(registry, attrs);
    this.version = attrs.info;
  }

  async run(): Promise<void> {
    this.objects = await requestObjects(this.registry, this.attrs);
    await this.round(0);
    if (this.changedInRound0 && this.reinvoke.size > 0) await this.round(1);
    if (this.patched && this.objects.object) await writeBack(this.registry, this.attrs, this.objects.object);
  }

  private async round(round: number): Promise<void> {
    for (let index = 0; index < this.hooks.length; index++) {
      const hook = this.hooks[index]!;
      const invocation = await this.selection.invocation(hook, this.objects);
      if (!invocation) continue;
      // A second round calls only webhooks of the first that asked for it, never a new one.
      if (round === 1 && !this.reinvoke.has(hook.id)) continue;
      await this.convertTo(invocation.info);
      let changed = false;
      let failure: unknown;
      try {
        changed = await this.call(invocation, round, index);
      } catch (err) {
        failure = err;
      }
      addAnnotation(this.attrs, mutationKey(round, index), mutationValue(hook.configurationName, hook.name, changed));
      if (changed) {
        for (const id of this.previouslyInvoked) this.reinvoke.add(id);
        this.previouslyInvoked = new Set();
        if (round === 0) this.changedInRound0 = true;
      }
      if (hook.reinvocationPolicy === 'IfNeeded') this.previouslyInvoked.add(hook.id);
      if (failure === undefined) continue;
      if (failure instanceof WebhookCallError) {
        if (hook.failurePolicy === 'Ignore') {
          addAnnotation(this.attrs, failedOpenMutationKey(round, index), hook.name);
          continue;
        }
        throw failure.toStatusError();
      }
      throw failure;
    }
  }

  private async convertTo(info: ResourceInfo): Promise<void> {
    if (info.apiVersion === this.version.apiVersion) return;
    this.objects = await objectsIn(this.registry, this.objects, info, this.attrs.subresource ?? '');
    this.version = info;
  }

  /** Calls one webhook and applies its patch; whether the object changed. */
  private async call(invocation: Invocation, round: number, index: number): Promise<boolean> {
    const hook = invocation.hook;
    const response = await callWebhook(this.registry, this.attrs, invocation, this.objects, true, this.metrics);
    if (!response.patch || response.patch.length === 0) return false;
    const text = response.patch.toString('utf8');
    let patch: unknown;
    try {
      patch = JSON.parse(text);
    } catch {
      throw internalError(jsonErrorText(text));
    }
    if (!Array.isArray(patch)) throw internalError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    if (patch.length === 0) return false;
    const object = this.objects.object;
    if (!object) throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
    if (response.patchType !== 'JSONPatch') throw new WebhookCallError(hook.name, `unsupported patch type ${JSON.stringify(response.patchType ?? '')}`);
    let result: unknown;
    try {
      result = applyJsonPatch(object, patch);
    } catch (err) {
      throw patchFailure(err);
    }
    if (!isObject(result)) throw internalError('the patched object is not a JSON object');
    const changed = !jsonEqual(object, result);
    addAnnotation(this.attrs, patchKey(round, index), patchValue(hook.configurationName, hook.name, patch));
    // Read back as an object of the kind sent, and defaulted again, as a decoded one would be.
    const { group, version, kind } = invocation.kind;
    const typed = canonical(result, kind, group ? `${group}/${version}` : version);
    invocation.info.definition.hooks.defaults?.(typed, invocation.info.version);
    this.objects = { ...this.objects, object: typed };
    this.patched = true;
    return changed;
  }
}

export function mutatingAdmissionWebhook(): AdmissionPlugin {
  return {
    name: 'MutatingAdmissionWebhook',
    async mutate(attrs, { registry, metrics }) {
      if (isWebhookConfiguration(attrs)) return;
      const hooks = await webhookSource(registry, 'mutating').hooks();
      if (hooks.length === 0) return;
      await new MutatingDispatch(registry, attrs, hooks, metrics).run();
    },
  };
}
