// `capstan convert -f FILE [--output-version group/version] [-o yaml|json]`: manifests converted
// offline, as kubectl-convert does, with the server's own conversions: objects of removed versions
// (extensions/v1beta1 Deployments, networking.k8s.io/v1beta1 Ingresses, …) to what replaced them,
// and any object to another served version of its kind (autoscaling/v1 ⇄ v2 HorizontalPodAutoscalers,
// core/v1 ⇄ events.k8s.io/v1 Events).
// Several objects (YAML documents, or a List) come out as one List, as kubectl-convert prints them.
import { readFileSync } from 'node:fs';
import { builtinResources } from '../api/catalog.js';
import { convertHorizontalPodAutoscaler } from '../api/conversion/autoscaling.js';
import { convertEvent } from '../api/conversion/events.js';
import { fromRemovedVersion, NoReplacement } from '../api/conversion/removed.js';
import { parseYaml } from '../encoding/yaml-decode.js';
import { goYaml } from '../endpoints/request.js';
import { isObject, type JsonObject, copyJson } from '../json.js';

export class ConvertError extends Error {}

export interface ConvertRequest {
  /** The manifest's text (YAML, one or more documents, or JSON). */
  text: string;
  outputVersion?: string;
  output: 'yaml' | 'json';
}

const USAGE = 'usage: capstan convert -f FILE [--output-version group/version] [-o yaml|json]';

/** The command line after `convert`: what to read and how to answer. */
export function parseConvertArgs(args: readonly string[], read: (path: string) => string = (p) => readFileSync(p === '-' ? 0 : p, 'utf8')): ConvertRequest {
  let file: string | undefined;
  let outputVersion: string | undefined;
  let output: 'yaml' | 'json' = 'yaml';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new ConvertError(`flag needs an argument: ${name}\n${USAGE}`);
      return v;
    };
    if (name === '-f' || name === '--filename') file = value();
    else if (name === '--output-version') outputVersion = value();
    else if (name === '-o' || name === '--output') {
      const v = value();
      if (v !== 'yaml' && v !== 'json') throw new ConvertError(`unable to match a printer suitable for the output format "${v}", allowed formats are: json,yaml`);
      output = v;
    } else throw new ConvertError(`unknown flag: ${name}\n${USAGE}`);
  }
  if (file === undefined) throw new ConvertError(`error: must specify one of -f and -k\n${USAGE}`);
  return { text: read(file), outputVersion, output };
}

/** Every object of the manifest: YAML documents (empty ones skipped) and List items, in order. */
function objectsOf(text: string): JsonObject[] {
  const documents = text.split(/^---[ \t]*$/m).filter((d) => d.trim() !== '');
  const out: JsonObject[] = [];
  for (const doc of documents) {
    const value = parseYaml(doc);
    if (!isObject(value)) throw new ConvertError('error: a document is not an object');
    if (typeof value['kind'] === 'string' && value['kind'].endsWith('List') && Array.isArray(value['items'])) out.push(...value['items'].filter(isObject));
    else out.push(value);
  }
  return out;
}

const EVENT_API_VERSIONS = new Set(['v1', 'events.k8s.io/v1']);
const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const versionOf = (apiVersion: string): string => apiVersion.split('/').pop()!;

/** Whether a built-in version (alpha ones too) has this kind. */
function servesKind(apiVersion: string, kind: string): boolean {
  const group = groupOf(apiVersion);
  const version = versionOf(apiVersion);
  return builtinResources(() => true).some((r) => r.group === group && r.version === version && r.kind === kind);
}

/** One object in the version asked for (or, without one, in the version that replaced a removed one). */
function convertOne(o: JsonObject, outputVersion: string | undefined): JsonObject {
  const kind = String(o['kind'] ?? '');
  let current: JsonObject;
  try {
    current = fromRemovedVersion(o);
  } catch (err) {
    if (err instanceof NoReplacement) throw new ConvertError(`error: ${kind}: ${err.message}`);
    throw err;
  }
  if (outputVersion === undefined) return current;
  const from = String(current['apiVersion'] ?? '');
  if (from === outputVersion) return current;
  // An Event is one kind in two groups (the reference stores both as core/v1).
  const eventPair = kind === 'Event' && EVENT_API_VERSIONS.has(from) && EVENT_API_VERSIONS.has(outputVersion);
  if (eventPair) return convertEvent(current, from, outputVersion);
  if (groupOf(from) !== groupOf(outputVersion) || !servesKind(outputVersion, kind)) {
    throw new ConvertError(`error: ${kind} in version "${from}" cannot be converted to "${outputVersion}": no kind "${kind}" is registered for version "${outputVersion}"`);
  }
  const converted = kind === 'HorizontalPodAutoscaler' ? convertHorizontalPodAutoscaler(current, versionOf(from), versionOf(outputVersion)) : copyJson(current);
  return { ...converted, apiVersion: outputVersion };
}

/** Keys sorted at every level, as kubectl prints an object. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedKeys(value[k])]));
}

/** The converted manifest as the command prints it. */
export function convertManifest(request: ConvertRequest): string {
  const objects = objectsOf(request.text).map((o) => convertOne(o, request.outputVersion));
  const result = objects.length === 1 ? objects[0]! : { apiVersion: 'v1', kind: 'List', items: objects, metadata: {} };
  const sorted = sortedKeys(result);
  return request.output === 'json' ? `${JSON.stringify(sorted, null, 4)}\n` : goYaml(sorted);
}
