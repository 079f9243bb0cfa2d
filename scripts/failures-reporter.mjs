// A node:test reporter that lists the failed tests once more at the very end of the run, with
// their files and errors, so a log read from its tail (CI keeps only the tail) says what failed.
// It runs beside the TAP reporter (package.json's config.test_reporters, which every test script passes).

const MAX_ERROR_LINES = 12;

function describe(error) {
  if (!error) return 'no error given';
  const inner = error.cause ?? error;
  const text = inner instanceof Error ? (inner.stack ?? String(inner)) : String(inner);
  const lines = text.split('\n').filter((line) => !/\(?node:(internal|async_hooks)/.test(line));
  return lines.slice(0, MAX_ERROR_LINES).join('\n');
}

export default async function* failuresReporter(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite fails when one of its tests does; the test's own entry says why.
    if (details?.error?.failureType === 'subtestsFailed') continue;
    failures.push({ name, file, error: describe(details?.error) });
  }
  if (failures.length === 0) return;
  yield `\n# ${failures.length} failed:\n`;
  for (const failure of failures) {
    yield `# ✖ ${failure.name}${failure.file ? ` (${failure.file})` : ''}\n`;
    for (const line of failure.error.split('\n')) yield `#     ${line}\n`;
  }
}
