// list: the collection (in a namespace, or across all), selected and paged as its ListOptions ask.
import { decodeListOptions } from '../options.js';
import { renderList } from '../representations.js';
import type { Answer, Scope } from './scope.js';

export async function handleList(scope: Scope): Promise<Answer> {
  const { registry, info, request, query, negotiated } = scope;
  const options = decodeListOptions(query, info, false, scope.features.enabled('APIListChunking'));
  return { status: 200, body: renderList(info, await registry.list(info, request.namespace, options), negotiated, query) };
}
