// The answer of a subresource that acts rather than returning an object (pods/binding,
// pods/eviction): a bare success Status with the HTTP code.

export function successStatus(code: number): Buffer {
  return Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code }));
}
