// rbac.authorization.k8s.io/v1: rules, role references and subjects.
import { type FieldError, fieldInvalid, fieldNotSupported, fieldRequired } from '../../errors.js';
import { isValidPathSegmentName } from '../names.js';
import { child, index, invalidAll, invalidRendered, obj, objs, type Obj, present, str, strings, subdomainName } from './helpers.js';
import { goStringSlice } from './go-syntax.js';
import { asSelector, validateLabelSelector } from './label-selector.js';
import { isObject } from '../../json.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function validatePolicyRule(rule: Obj, namespaced: boolean, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (strings(rule['verbs']).length === 0) errs.push(fieldRequired(child(field, 'verbs'), 'verbs must contain at least one value'));
  const urls = strings(rule['nonResourceURLs']);
  if (urls.length > 0) {
    if (namespaced) errs.push(invalidRendered(child(field, 'nonResourceURLs'), goStringSlice(urls), 'namespaced rules cannot apply to non-resource URLs'));
    if (strings(rule['apiGroups']).length || strings(rule['resources']).length || strings(rule['resourceNames']).length) {
      errs.push(invalidRendered(child(field, 'nonResourceURLs'), goStringSlice(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!present(rule['apiGroups']) || strings(rule['apiGroups']).length === 0) errs.push(fieldRequired(child(field, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (strings(rule['resources']).length === 0) errs.push(fieldRequired(child(field, 'resources'), 'resource rules must supply at least one resource'));
  return errs;
}

export function validateRole(role: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  objs(role['rules']).forEach((r, i) => errs.push(...validatePolicyRule(r, namespaced, index('rules', i))));
  if (!namespaced && isObject(role['aggregationRule'])) {
    const selectors = objs(role['aggregationRule']['clusterRoleSelectors']);
    if (selectors.length === 0) errs.push(fieldRequired('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => {
      const path = index('aggregationRule.clusterRoleSelectors', i);
      errs.push(...validateLabelSelector(s, path));
      if (!asSelector(s)) errs.push(fieldInvalid(path, s, 'invalid label selector.'));
    });
  }
  return errs;
}

function validateSubject(subject: Obj, namespaced: boolean, field: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(subject['name']);
  if (name === '') errs.push(fieldRequired(child(field, 'name')));
  // apiGroup is defaulted for User and Group subjects.
  const apiGroup = present(subject['apiGroup']) ? str(subject['apiGroup']) : undefined;
  switch (str(subject['kind'])) {
    case 'ServiceAccount':
      if (name !== '') errs.push(...subdomainName(name, child(field, 'name')));
      if (apiGroup) errs.push(fieldNotSupported(child(field, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && str(subject['namespace']) === '') errs.push(fieldRequired(child(field, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== undefined && apiGroup !== RBAC_GROUP) errs.push(fieldNotSupported(child(field, 'apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldNotSupported(child(field, 'kind'), str(subject['kind']), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

export function validateBinding(binding: Obj, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = obj(binding['roleRef']);
  if (str(ref['apiGroup']) !== RBAC_GROUP) errs.push(fieldNotSupported('roleRef.apiGroup', str(ref['apiGroup']), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref['kind']))) errs.push(fieldNotSupported('roleRef.kind', str(ref['kind']), kinds));
  const name = str(ref['name']);
  if (name === '') errs.push(fieldRequired('roleRef.name'));
  else errs.push(...invalidAll('roleRef.name', name, isValidPathSegmentName(name)));
  objs(binding['subjects']).forEach((s, i) => errs.push(...validateSubject(s, namespaced, index('subjects', i))));
  return errs;
}

/** roleRef is fixed: a binding to another role is a new binding. */
export function validateBindingUpdate(binding: Obj, old: Obj, namespaced: boolean): FieldError[] {
  const errs = validateBinding(binding, namespaced);
  const ref = obj(binding['roleRef']);
  const oldRef = obj(old['roleRef']);
  if (['apiGroup', 'kind', 'name'].some((k) => str(ref[k]) !== str(oldRef[k]))) {
    const rendered = `rbac.RoleRef{APIGroup:${JSON.stringify(str(ref['apiGroup']))}, Kind:${JSON.stringify(str(ref['kind']))}, Name:${JSON.stringify(str(ref['name']))}}`;
    errs.push(invalidRendered('roleRef', rendered, 'cannot change roleRef'));
  }
  return errs;
}
