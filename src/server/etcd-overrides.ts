// --etcd-servers-overrides as the reference reads it: comma-separated `group/resource#servers`,
// servers separated by `;` ("/events#http://127.0.0.1:4002" puts core Events in a second etcd).

export interface EtcdServersOverride {
  group: string;
  resource: string;
  servers: string[];
}

const FORMAT = 'must be of format: group/resource#servers, where servers are URLs, semicolon separated';

/** Throws the reference's message (after the flag's name) for a value it would refuse. */
export function parseEtcdServersOverride(text: string): EtcdServersOverride {
  const tokens = text.split('#');
  if (tokens.length !== 2) throw new Error(`invalid, ${FORMAT}`);
  const groupResource = tokens[0]!.split('/');
  if (groupResource.length !== 2) throw new Error(`invalid, ${FORMAT}`);
  const servers = tokens[1]!.split(';').map((s) => s.trim()).filter(Boolean);
  // The reference would fail later, dialling nothing; refused here with the same words.
  if (servers.length === 0 || groupResource[1] === '') throw new Error(`invalid, ${FORMAT}`);
  for (const server of servers) {
    let url: URL | undefined;
    try {
      url = new URL(server);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new Error(`invalid server URL ${JSON.stringify(server)}: ${FORMAT}`);
  }
  return { group: groupResource[0]!, resource: groupResource[1]!, servers };
}

/**
 * The key prefixes (capstan's keys, below /registry) of an override's resource. Core Events take
 * events.k8s.io's along: the reference stores both as one resource.
 */
export function overridePrefixes(o: EtcdServersOverride): string[] {
  const own = o.group ? `/registry/${o.group}/${o.resource}/` : `/registry/${o.resource}/`;
  if (o.group === '' && o.resource === 'events') return [own, '/registry/events.k8s.io/events/'];
  if (o.group === 'events.k8s.io' && o.resource === 'events') return [own, '/registry/events/'];
  return [own];
}
