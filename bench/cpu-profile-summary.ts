// Where a process spent its CPU, from a V8 `.cpuprofile` (`node --cpu-prof`): self time by package or app folder,
// and the hottest functions. Pass APP_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" to a benchmark to get one.
//
//   node -r @swc-node/register bench/cpu-profile-summary.ts <file.cpuprofile> [--top 15] [--skip-ms 10000]
//
// --skip-ms leaves out the first milliseconds (start-up: compiling and loading modules).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatTable } from './bench-env';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '15' }, 'skip-ms': { type: 'string', default: '0' } },
  allowPositionals: true,
});

/** What a frame belongs to: a package, node itself, an app or lib folder, or V8's own buckets. */
function owner(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith('node:')) return 'node';
  const local = /\/((?:apps|libs)\/[^/]+\/src\/[^/]+)/.exec(url);
  return local?.[1] ?? url.replace(/^.*\//, '');
}

function main(): void {
  const file = positionals[0];
  if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [--top N]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const skipUs = Number(values['skip-ms']) * 1_000;
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const node = nodes.get(id);
    if (at - profile.startTime < skipUs || !node) return;
    const ms = delta / 1_000;
    totalMs += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const who = owner(url, functionName);
    byOwner.set(who, (byOwner.get(who) ?? 0) + ms);
    const name = `${functionName || '(anonymous)'} ${who}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  });
  const busyMs = [...byOwner].filter(([who]) => who !== '(idle)').reduce((sum, [, ms]) => sum + ms, 0);
  const rows = (map: Map<string, number>) =>
    [...map]
      .filter(([who]) => !who.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, Number(values.top))
      .map(([who, ms]) => [who, ms.toFixed(0), `${((ms / busyMs) * 100).toFixed(1)}%`]);
  process.stdout.write(`${file}: ${busyMs.toFixed(0)} ms busy of ${totalMs.toFixed(0)} ms\n\n`);
  process.stdout.write(formatTable(['owner', 'self ms', 'share of busy'], rows(byOwner)));
  process.stdout.write('\n');
  process.stdout.write(formatTable(['function', 'self ms', 'share of busy'], rows(byFunction)));
}

main();
