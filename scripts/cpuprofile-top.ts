// Prints where a `node --cpu-prof` profile spent its time: the top functions by self time, and
// self time per package or source folder. Usage: tsx scripts/cpuprofile-top.ts FILE [--top N]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<package> or the project folder a frame belongs to. */
function ownerOf(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) return url;
  const project = /\/(dist|src|scripts)\/(.*)$/.exec(url);
  return project ? `${project[1]}/${project[2]!.split('/').slice(0, -1).join('/') || '.'}` : url;
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' } },
  allowPositionals: true,
});
const file = positionals[0];
if (!file) throw new Error('usage: tsx scripts/cpuprofile-top.ts FILE.cpuprofile [--top N]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<number, number>();
let totalMicros = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
  totalMicros += delta;
});

const keyOf = (node: ProfileNode): string => {
  const frame = node.callFrame;
  const where = frame.url
    ? `${frame.url.replace(/^.*\/(node_modules|dist|src|scripts)\//, '$1/')}:${frame.lineNumber + 1}`
    : '';
  return `${frame.functionName || '(anonymous)'} ${where}`;
};

const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const byFunction = new Map<string, number>();
const byOwner = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = byId.get(id)!;
  if (node.callFrame.functionName === '(idle)') {
    totalMicros -= micros;
    continue;
  }
  const key = keyOf(node);
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
  const owner = ownerOf(node.callFrame.url);
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + micros);
  // Inclusive time: each sample counts once for every distinct function on its stack.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frameKey = keyOf(byId.get(at)!);
    if (seen.has(frameKey)) continue;
    seen.add(frameKey);
    inclusive.set(frameKey, (inclusive.get(frameKey) ?? 0) + micros);
  }
}

const top = Number.parseInt(values.top, 10);
const show = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title} (self time, share of busy time)`);
  for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * micros) / totalMicros).toFixed(1).padStart(5)}%  ${name}`);
  }
};
console.log(`${file}: ${(totalMicros / 1e6).toFixed(2)} s busy`);
show('by package or folder', byOwner);
show('by function', byFunction);
show('by function, inclusive of callees', inclusive);
