// Where faultline's retained bytes go, per object kind: for one provider, `count` real SDK errors
// held alive, then a FaultlineError and its report for each; two heap snapshots (before and after
// the second step) and the nodes new in the second, grouped by V8's type and name, bytes per error.
// Usage: node --conditions=@faultline/source --import tsx --expose-gc src/retained-breakdown.ts openai [count]

import { readFileSync, rmSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
import { classifyError } from '@faultline/render';
import { startScenarioServers } from '@faultline/scenario-driver';
import { rateLimitSample, subjects } from './error-path.ts';
import { floorOf } from './retained-floor.ts';

const gc = (globalThis as { gc?: () => void }).gc!;
const provider = process.argv[2] ?? 'openai';
const count = Number(process.argv[3] ?? '20000');

interface Snapshot {
  ids: Map<number, [string, string, number]>;
}
/** Written to a file only: parsing waits until both are taken, so that it allocates nothing between them. */
function snapshotFile(): string {
  for (let pass = 0; pass < 3; pass += 1) gc();
  return writeHeapSnapshot();
}
function snapshot(file: string): Snapshot {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  const meta = json.snapshot.meta;
  const fields: string[] = meta.node_fields;
  const types: string[] = meta.node_types[0];
  const width = fields.length;
  const [ti, ni, ii, si] = ['type', 'name', 'id', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
    number,
  ];
  const ids = new Map<number, [string, string, number]>();
  const nodes: number[] = json.nodes;
  const edges: number[] = json.edges;
  const edgeFields: string[] = meta.edge_fields;
  const edgeTypes: string[] = meta.edge_types[0];
  const ew = edgeFields.length;
  const ec = fields.indexOf('edge_count');
  let edgeAt = 0;
  for (let at = 0; at < nodes.length; at += width) {
    const type = types[nodes[at + ti]!]!;
    let name: string = json.strings[nodes[at + ni]!];
    // Objects and hidden arrays are told apart by their first few named edges (their keys).
    const keys: string[] = [];
    for (let e = 0; e < nodes[at + ec]!; e += 1, edgeAt += ew) {
      const kind = edgeTypes[edges[edgeAt]!];
      if (keys.length < 4 && (kind === 'property' || (kind === 'internal' && type === 'hidden')))
        keys.push(String(json.strings[edges[edgeAt + 1]!]));
      if (keys.length < 4 && kind === 'element' && type === 'array') keys.push(`#`);
    }
    if (type === 'object' || type === 'hidden') name = `${name} {${keys.join(',')}}`;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string')
      name = JSON.stringify(name.slice(0, 60));
    ids.set(nodes[at + ii]!, [type, name, nodes[at + si]!]);
  }
  return { ids };
}

const servers = await startScenarioServers();
const subject = subjects.find((s) => s.provider === provider)!;
const sample = await rateLimitSample(provider, servers);
await servers.close();
const construct = subject.construct(sample);
const options = { extractors: [subject.extractor] };
for (let i = 0; i < 1000; i += 1) classifyError(construct(), options).toErrorReport();
const sdkErrors: unknown[] = new Array(count);
for (let i = 0; i < count; i += 1) sdkErrors[i] = construct();
const errors: unknown[] = new Array(count);
const reports: unknown[] = new Array(count);
let firstFile = snapshotFile();
for (let i = 0; i < count; i += 1) {
  const error = classifyError(sdkErrors[i], options);
  errors[i] = error;
  reports[i] = error.toErrorReport();
}
let secondFile = snapshotFile();
// `floor` as a third argument: the nodes of the floor's objects (retained-floor.ts) instead.
const floorHeld: unknown[] = [];
if (process.argv[4] === 'floor') {
  rmSync(firstFile);
  firstFile = secondFile;
  for (let i = 0; i < count; i += 1) floorHeld.push(floorOf(errors[i] as never, reports[i] as never));
  secondFile = snapshotFile();
}
const first = snapshot(firstFile);
const second = snapshot(secondFile);
const groups = new Map<string, { bytes: number; nodes: number }>();
for (const [id, [type, name, size]] of second.ids) {
  if (first.ids.has(id)) continue;
  const key = `${type} ${name}`;
  const group = groups.get(key) ?? { bytes: 0, nodes: 0 };
  group.bytes += size;
  group.nodes += 1;
  groups.set(key, group);
}
const rows = [...groups].sort((a, b) => b[1].bytes - a[1].bytes).filter(([, g]) => g.bytes / count >= 0.5);
let total = 0;
for (const [, g] of groups) total += g.bytes;
console.log(`${provider}: ${(total / count).toFixed(1)} B per error in new nodes`);
for (const [key, g] of rows)
  console.log(
    `${(g.bytes / count).toFixed(1).padStart(7)} B  ${(g.nodes / count).toFixed(2).padStart(5)}/err  ${key}`,
  );
if (sdkErrors.length + errors.length + reports.length + floorHeld.length < 3 * count)
  throw new Error('unreachable');
