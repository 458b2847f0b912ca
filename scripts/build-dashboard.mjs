// Builds the dashboard (src/dashboard) into dist/dashboard: one hashed JS and CSS bundle plus
// index.html. With --if-stale it does nothing when every input is older than the last build,
// so `npm start` only pays for a build after the sources changed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';
import { isStale, listFiles } from './stale.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'dist/dashboard');
const manifestFile = path.join(outDir, 'build.json');
const self = fileURLToPath(import.meta.url);

async function build() {
  const started = Date.now();
  const assets = path.join(outDir, 'assets');
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['src/dashboard/main.tsx'],
    bundle: true,
    format: 'esm',
    // Pages loaded on demand (the Insight page and its charting library) become chunks of their own.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'browser',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    minify: true,
    sourcemap: 'linked',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === 'src/dashboard/main.tsx');
  const js = path.basename(entry[0]);
  const css = outputs.find((f) => f.endsWith('.css'));
  // Chunks the entry imports load with it (code it shares with the on-demand pages); the rest on demand.
  const withEntry = entry[1].imports.filter((i) => i.kind === 'import-statement').map((i) => path.basename(i.path));
  const chunks = outputs.filter((f) => f.endsWith('.js') && f !== js);
  const list = (files) => files.map((f) => `${f} ${size(f)}`).join(', ');
  const html = fs
    .readFileSync(path.join(root, 'src/dashboard/index.html'), 'utf8')
    .replace('%JS%', js)
    .replace('%CSS%', css)
    // The chunks the entry imports are fetched alongside it rather than after it.
    .replace(
      '<script type="module"',
      [
        ...withEntry.map((f) => `<link rel="modulepreload" href="/dashboard/assets/${f}" />\n    `),
        '<script type="module"',
      ].join(''),
    );
  fs.writeFileSync(path.join(outDir, 'index.html'), html);
  // Scripts and style sheets compressed once here, served by Accept-Encoding (src/http/dashboard.ts).
  for (const f of outputs.filter((o) => /\.(js|css)$/.test(o))) {
    const file = path.join(assets, f);
    const body = fs.readFileSync(file);
    fs.writeFileSync(
      `${file}.br`,
      zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  }
  fs.writeFileSync(manifestFile, JSON.stringify({ inputs: Object.keys(result.metafile.inputs), js, css }, null, 2));
  const kB = (file) => `${(fs.statSync(file).size / 1024).toFixed(1)} kB`;
  const size = (f) => `${kB(path.join(assets, f))} (${kB(path.join(assets, `${f}.br`))} brotli)`;
  const shared = chunks.filter((f) => withEntry.includes(f));
  const onDemand = chunks.filter((f) => !withEntry.includes(f));
  console.log(
    `dashboard built in ${Date.now() - started} ms: ${js} ${size(js)}, ${css} ${size(css)}` +
      (shared.length ? `, loaded with it ${list(shared)}` : '') +
      (onDemand.length ? ` (on demand: ${list(onDemand)})` : ''),
  );
}

// The bundle's own inputs (recorded at build), any new file in src/dashboard, the lock file, these scripts.
const watched = () => [
  ...listFiles(path.join(root, 'src/dashboard')),
  path.join(root, 'package-lock.json'),
  self,
  path.join(root, 'scripts/stale.mjs'),
];
if (process.argv.includes('--if-stale') && !isStale(root, manifestFile, watched())) process.exit(0);
await build();
