// The one-file builds of the commands (dist/bundle/<command>.cjs), made after tsc by `npm run build`
// and by `npm start`'s build: loading one file instead of ~470 modules, each resolved, read and
// compiled on its own, is most of what a start costs (src/cmd/bundled.ts runs them).
// Made from tsc's output, so the type check stays tsc's. Only better-sqlite3 (a native addon), the
// packages the code itself loads lazily with createRequire, and the etcd client (LOADED_WHEN_NEEDED)
// stay outside, loaded from node_modules when first needed.
import { build } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const COMMANDS = ['capstan', 'host'];

/**
 * Packages the code imports only when a server is started on etcd (its client): left outside,
 * they are loaded from node_modules then. Inside, every start read and decoded their 0.6 MB of
 * text, and the server kept it for as long as it ran. What any server may run soon stays inside:
 * loaded from node_modules, compiled without the bundle's code cache, the X.509 writer made each
 * start on a new certificate folder ~100 ms longer, and JWT the first service account token 30 ms.
 */
const LOADED_WHEN_NEEDED = ['@grpc/grpc-js', '@grpc/proto-loader'];

/**
 * A module's `import.meta.url` as the module had it in dist/src, so that the data files and
 * scripts it finds relative to itself are found from the bundle too (the CommonJS bundle has no
 * import.meta).
 */
function moduleUrls(outdir) {
  return {
    name: 'module-urls',
    setup(b) {
      b.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const own = JSON.stringify(relative(outdir, args.path));
        const url = `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${own})).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
      });
    },
  };
}

export async function bundle(root = ROOT) {
  const outdir = join(root, 'dist/bundle');
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(COMMANDS.map((c) => [c, join(root, `dist/src/cmd/${c}-main.js`)])),
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['better-sqlite3', ...LOADED_WHEN_NEEDED],
    // The bundle runs only where require() takes ES modules (bundled.ts checks), so the
    // module-loading fallback for older Nodes (a top-level await) is left out.
    define: { 'process.features.require_module': 'true' },
    plugins: [moduleUrls(outdir)],
    logLevel: 'warning',
    // Without its indentation and comments (names kept): the server keeps the bundle's text for
    // as long as it runs (V8 compiles functions from it lazily), 3.0 MB instead of 4.2 (idle RSS
    // 88.5 MB instead of 91.5). Licence comments stay, at the end.
    minifyWhitespace: true,
  });
  await Promise.all(COMMANDS.map(async (c) => {
    await noImportCalls(join(outdir, `${c}.cjs`));
    await asciiOnly(join(outdir, `${c}.cjs`));
  }));
}

/**
 * A script run by vm.Script (src/cmd/bundled.ts) has no loader for import() without an
 * experimental flag: an import() of a package left outside would fail when first run, so the build
 * fails instead (a package imported so must stay inside, or be loaded with require()).
 */
async function noImportCalls(file) {
  const call = /\bimport\("[^"]*"\)/.exec(await readFile(file, 'utf8'));
  if (call) throw new Error(`${file}: ${call[0]} cannot run in the bundle`);
}

/**
 * esbuild escapes what is not ASCII in strings, but not in comments and regular expressions. Escaped
 * there too, the bundle is ASCII, and bundled.ts reads it as Latin-1: a one-byte string made at
 * memory speed, where UTF-8 decoding into a two-byte string of twice the size took ~14 ms a start.
 * (`\uXXXX` in a comment is a comment; in a regular expression, one code unit as before.)
 */
async function asciiOnly(file) {
  const text = await readFile(file, 'utf8');
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) await writeFile(file, ascii);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
