// Where a server's CPU went while it answered requests: each `.cpuprofile` given (written by
// `npm run bench -- --profile <dir>`) summed by package (a dependency, node's own modules, the
// service's code, the garbage collector), as shares of the time the main thread was busy after its
// first request, so start-up work is left out. Several profiles print side by side; multiplied by
// a case's CPU ms/request from the same run, a share gives the package's cost per request.
//
//   npx tsx bench/profile-summary.ts <profile> [<profile> …] [--top 30]
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a frame belongs to. */
function packageOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName.slice(0, 24)}`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1];
  if (url.startsWith('node:')) return url.replace(/^node:internal\//, 'node:').replace(/\/.*$/, '');
  if (url.startsWith('wasm://')) return '(WebAssembly)';
  return '(own code)';
}

/**
 * Frames that mark a request being served: the service's REST and yoga handlers (its health check
 * answers while it still starts, so node's HTTP parser is no mark), and the baselines' own code.
 */
const isRequestFrame = ({ functionName, url }: ProfileNode['callFrame']) =>
  functionName === 'handleRest' || functionName === 'handleNodeRequestAndResponse' || url.includes('/bench/baselines/');

/** Busy milliseconds per package, counted from the first sample taken inside a request handler. */
function summarize(file: string): { busyMs: number; byPackage: Map<string, number> } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const inRequest = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (isRequestFrame(nodes.get(at)!.callFrame)) return true;
    return false;
  };
  const byPackage = new Map<string, number>();
  let busyMs = 0;
  let started = false;
  for (let i = 0; i < profile.samples.length; i++) {
    started ||= inRequest(profile.samples[i]);
    const frame = nodes.get(profile.samples[i])!.callFrame;
    if (!started || frame.functionName === '(idle)') continue;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    busyMs += ms;
    const name = packageOf(frame);
    byPackage.set(name, (byPackage.get(name) ?? 0) + ms);
  }
  return { busyMs, byPackage };
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
const files = args.filter((a, i) => a !== '--top' && i !== topAt + 1);
if (!files.length) {
  console.error('usage: npx tsx bench/profile-summary.ts <profile.cpuprofile> [...] [--top 30]');
  process.exit(2);
}
const summaries = files.map(summarize);
const share = (s: (typeof summaries)[number], name: string) => (s.byPackage.get(name) ?? 0) / s.busyMs;
// Largest first by the most any profile spends there.
const names = [...new Set(summaries.flatMap((s) => [...s.byPackage.keys()]))]
  .sort((a, b) => Math.max(...summaries.map((s) => share(s, b))) - Math.max(...summaries.map((s) => share(s, a))))
  .slice(0, top);
const width = Math.max(...names.map((n) => n.length), 7);
const column = (s: string) => s.padStart(12);
console.log(''.padEnd(width), ...files.map((f) => column(path.basename(path.dirname(f)).slice(0, 12))));
console.log('busy ms'.padEnd(width), ...summaries.map((s) => column(s.busyMs.toFixed(0))));
for (const name of names)
  console.log(name.padEnd(width), ...summaries.map((s) => column(`${(100 * share(s, name)).toFixed(1)} %`)));
