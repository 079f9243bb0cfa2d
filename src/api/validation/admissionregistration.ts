// admissionregistration.k8s.io/v1 webhook configurations: fully-qualified unique names, rules,
// one client config (an https URL or a service), side effects and review versions.
import { type FieldError, fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../names.js';
import { goStringSlice } from './go-syntax.js';
import { child, index, invalidRendered, isValidPortNum, num, obj, objs, type Obj, present, str, strings } from './helpers.js';
import { validateLabelSelector } from './label-selector.js';
import { isObject } from '../../json.js';

const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** IsFullyQualifiedName: a DNS subdomain of at least three labels. */
function fullyQualified(name: string, field: string): FieldError[] {
  if (name === '') return [fieldRequired(field)];
  const msgs = isDNS1123Subdomain(name);
  if (msgs.length) return [fieldInvalid(field, name, msgs.join(','))];
  if (name.split('.').length < 3) return [fieldInvalid(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateResources(resources: string[], field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldRequired(field));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plain = false;
  resources.forEach((r, i) => {
    if (r === '') {
      errs.push(fieldRequired(index(field, i)));
      return;
    }
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      plain = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(fieldInvalid(index(field, i), r, `if '${res}/*' is present, must not specify ${r}`));
    if (wildcardRes.has(sub)) errs.push(fieldInvalid(index(field, i), r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalidRendered(field, goStringSlice(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plain) errs.push(invalidRendered(field, goStringSlice(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const operations = strings(rule['operations']);
  if (operations.length === 0) errs.push(fieldRequired(child(field, 'operations')));
  if (operations.length > 1 && operations.includes('*')) errs.push(invalidRendered(child(field, 'operations'), goStringSlice(operations, '[]admissionregistration.OperationType'), "if '*' is present, must not specify other operations"));
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldNotSupported(index(child(field, 'operations'), i), op, OPERATIONS));
  });
  const groups = strings(rule['apiGroups']);
  if (!present(rule['apiGroups']) || groups.length === 0) errs.push(fieldRequired(child(field, 'apiGroups')));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalidRendered(child(field, 'apiGroups'), goStringSlice(groups), "if '*' is present, must not specify other API groups"));
  const versions = strings(rule['apiVersions']);
  if (versions.length === 0) errs.push(fieldRequired(child(field, 'apiVersions')));
  if (versions.length > 1 && versions.includes('*')) errs.push(invalidRendered(child(field, 'apiVersions'), goStringSlice(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldRequired(index(child(field, 'apiVersions'), i)));
  });
  errs.push(...validateResources(strings(rule['resources']), child(field, 'resources')));
  if (present(rule['scope']) && !['*', 'Cluster', 'Namespaced'].includes(str(rule['scope']))) errs.push(fieldNotSupported(child(field, 'scope'), rule['scope'], ['*', 'Cluster', 'Namespaced']));
  return errs;
}

export function validateWebhookUrl(value: string, field: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return [fieldRequired(field, `url must be a valid URL: parse ${JSON.stringify(value)}: invalid URI for request${form}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldInvalid(field, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldInvalid(field, u.host, `host must be specified${form}`));
  if (u.username || u.password) errs.push(fieldInvalid(field, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(fieldInvalid(field, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fieldInvalid(field, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

export function validateWebhookService(service: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(service['name']) === '') errs.push(fieldRequired(child(field, 'name'), 'service name is required'));
  if (str(service['namespace']) === '') errs.push(fieldRequired(child(field, 'namespace'), 'service namespace is required'));
  // port is defaulted to 443.
  const port = num(service['port']) ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(fieldInvalid(child(field, 'port'), port, `port is not valid: ${portErrs.join(', ')}`));
  if (!present(service['path'])) return errs;
  const path = str(service['path']);
  if (path === '/' || path === '') return errs;
  if (path === '//') return [...errs, fieldInvalid(child(field, 'path'), path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(fieldInvalid(child(field, 'path'), path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') errs.push(fieldInvalid(child(field, 'path'), path, `segment[${i}] may not be empty`));
    else for (const msg of isDNS1123Subdomain(step)) errs.push(fieldInvalid(child(field, 'path'), path, `segment[${i}]: ${msg}`));
  });
  return errs;
}

function validateWebhook(hook: Obj, mutating: boolean, field: string): FieldError[] {
  const errs = fullyQualified(str(hook['name']), child(field, 'name'));
  objs(hook['rules']).forEach((r, i) => errs.push(...validateRule(r, index(child(field, 'rules'), i))));
  if (present(hook['failurePolicy']) && !['Fail', 'Ignore'].includes(str(hook['failurePolicy']))) errs.push(fieldNotSupported(child(field, 'failurePolicy'), hook['failurePolicy'], ['Fail', 'Ignore']));
  if (present(hook['matchPolicy']) && !['Equivalent', 'Exact'].includes(str(hook['matchPolicy']))) errs.push(fieldNotSupported(child(field, 'matchPolicy'), hook['matchPolicy'], ['Equivalent', 'Exact']));
  if (!present(hook['sideEffects'])) errs.push(fieldRequired(child(field, 'sideEffects'), 'must specify one of None, NoneOnDryRun'));
  else if (!['None', 'NoneOnDryRun'].includes(str(hook['sideEffects']))) errs.push(fieldNotSupported(child(field, 'sideEffects'), hook['sideEffects'], ['None', 'NoneOnDryRun']));
  const timeout = num(hook['timeoutSeconds']);
  if (timeout !== undefined && (timeout > 30 || timeout < 1)) errs.push(fieldInvalid(child(field, 'timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  errs.push(...validateLabelSelector(hook['namespaceSelector'], child(field, 'namespaceSelector')));
  errs.push(...validateLabelSelector(hook['objectSelector'], child(field, 'objectSelector')));
  if (mutating && present(hook['reinvocationPolicy']) && !['IfNeeded', 'Never'].includes(str(hook['reinvocationPolicy']))) {
    errs.push(fieldNotSupported(child(field, 'reinvocationPolicy'), hook['reinvocationPolicy'], ['IfNeeded', 'Never']));
  }
  const cc = obj(hook['clientConfig']);
  const ccPath = child(field, 'clientConfig');
  if (present(cc['url']) === isObject(cc['service'])) errs.push(fieldRequired(ccPath, 'exactly one of url or service is required'));
  else if (present(cc['url'])) errs.push(...validateWebhookUrl(str(cc['url']), child(ccPath, 'url')));
  else errs.push(...validateWebhookService(obj(cc['service']), child(ccPath, 'service')));
  return errs;
}

function validateReviewVersions(versions: unknown, field: string): FieldError[] {
  const list = strings(versions);
  if (list.length === 0) return [fieldRequired(field, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldInvalid(index(field, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldInvalid(index(field, i), v, msg));
    if (REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (!accepted) errs.push(invalidRendered(field, goStringSlice(list), `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

export function validateWebhookConfiguration(config: Obj, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(config['webhooks']).forEach((hook, i) => {
    const path = index('webhooks', i);
    errs.push(...validateWebhook(hook, mutating, path));
    errs.push(...validateReviewVersions(hook['admissionReviewVersions'], child(path, 'admissionReviewVersions')));
    const name = str(hook['name']);
    if (name === '') return;
    if (names.has(name)) errs.push(fieldDuplicate(child(path, 'name'), name));
    else names.add(name);
  });
  return errs;
}
