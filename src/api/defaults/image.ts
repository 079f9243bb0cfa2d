// imagePullPolicy from the image reference, as the reference decides it: Always when the tag is
// `latest` or when there is neither tag nor digest (the tag then defaults to latest); otherwise
// IfNotPresent, which is also the answer for a reference that does not parse.
//
// The grammar is the container image reference's (registry/repository[:tag][@digest]), with
// Docker Hub normalization: a first component without `.` or `:` (and not `localhost`) is a
// path under docker.io, and the repository must be lower case.

// The grammar's separator may be empty (`[-]*`); two runs of alphanumerics with nothing between
// are one run, so here it is at least one character. The same language without the ambiguity,
// which JavaScript's backtracking engine (unlike Go's) would explore exponentially.
const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|-+)';
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN_COMPONENT = '[a-zA-Z0-9](?:-*[a-zA-Z0-9])*';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const HEX_IDENTIFIER = /^[a-f0-9]{64}$/;
const NAME_MAX_LENGTH = 255;
// Digest algorithms a reference may name, with the length of their lower-case hex encoding.
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

interface ImageReference {
  tag?: string;
  digest?: string;
}

function validDigest(digest: string): boolean {
  const at = digest.indexOf(':');
  const length = DIGEST_HEX_LENGTH[digest.slice(0, at)];
  const hex = digest.slice(at + 1);
  return length !== undefined && hex.length === length && /^[a-f0-9]+$/.test(hex);
}

/** Docker Hub's normalization: the registry part, and `library/` for official images. */
function normalize(image: string): { domain: string; remainder: string } {
  const slash = image.indexOf('/');
  const first = slash === -1 ? '' : image.slice(0, slash);
  let domain = 'docker.io';
  let remainder = image;
  if (slash !== -1 && (/[.:]/.test(first) || first === 'localhost')) {
    domain = first === 'index.docker.io' ? 'docker.io' : first;
    remainder = image.slice(slash + 1);
  }
  if (domain === 'docker.io' && !remainder.includes('/')) remainder = `library/${remainder}`;
  return { domain, remainder };
}

/** The tag and digest of an image reference; undefined when it does not parse. */
export function parseImageReference(image: string): ImageReference | undefined {
  if (HEX_IDENTIFIER.test(image)) return undefined;
  const { domain, remainder } = normalize(image);
  const colon = remainder.indexOf(':');
  const repository = colon === -1 ? remainder : remainder.slice(0, colon);
  if (repository.toLowerCase() !== repository) return undefined;
  const match = REFERENCE.exec(`${domain}/${remainder}`);
  if (!match || match[1]!.length > NAME_MAX_LENGTH) return undefined;
  const [, , tag, digest] = match;
  if (digest !== undefined && !validDigest(digest)) return undefined;
  return { tag, digest };
}

export function pullPolicyFor(image: unknown): 'Always' | 'IfNotPresent' {
  const ref = parseImageReference(typeof image === 'string' ? image : '');
  if (!ref) return 'IfNotPresent';
  const tag = ref.tag ?? (ref.digest === undefined ? 'latest' : undefined);
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}
