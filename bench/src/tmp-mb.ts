import { guardAnthropicStream } from '@faultline/extract-anthropic';
import { guardBedrockStream } from '@faultline/extract-bedrock';
import { guardGeminiStream } from '@faultline/extract-google-genai';
import { guardGroqStream } from '@faultline/extract-groq';
import { guardMistralStream } from '@faultline/extract-mistral';
import { guardOpenAIStream } from '@faultline/extract-openai';
import { chunkScan, guardStream } from '@faultline/render';
import {
  anthropicEvents,
  bedrockEvents,
  geminiChunks,
  groqChunks,
  mistralEvents,
  openaiChunks,
} from './stream-chunks.ts';

async function* replay(chunks: readonly object[]) {
  for (const c of chunks) yield c;
}
async function consume(s: AsyncIterable<unknown>) {
  let n = 0;
  for await (const _ of s) n++;
  return n;
}
const N = 1000;
async function time(f: () => Promise<unknown>) {
  const t = process.cpuUsage();
  for (let i = 0; i < 300; i++) await f();
  const u = process.cpuUsage(t);
  return ((u.user + u.system) * 1000) / 300 / N;
}
const which = process.argv[2] ?? 'all';
const subjects: Array<
  [string, (n: number) => object[], (s: AsyncIterable<object>, o: any) => AsyncIterable<unknown>]
> = [
  ['bare', openaiChunks, (s, o) => guardStream(s, o)],
  [
    'bare3',
    openaiChunks,
    (s, o) =>
      guardStream(s, {
        inspectChunk: () => undefined,
        measure: () => 0,
        isTerminal: () => false,
        requireTerminal: false,
        ...o,
      }),
  ],
  ['scan0', openaiChunks, (s, o) => guardStream(s, { ...chunkScan(() => {}), requireTerminal: false, ...o })],
  ['openai', openaiChunks, (s, o) => guardOpenAIStream(s, o)],
  ['anthropic', anthropicEvents, (s, o) => guardAnthropicStream(s, o)],
  ['gemini', geminiChunks, (s, o) => guardGeminiStream(s, o)],
  ['bedrock', bedrockEvents, (s, o) => guardBedrockStream(s, o)],
  ['mistral', mistralEvents, (s, o) => guardMistralStream(s, o)],
  ['groq', groqChunks, (s, o) => guardGroqStream(s, o)],
];
for (const [name, make, wrap] of subjects) {
  if (which !== 'all' && !which.split(',').includes(name)) continue;
  const chunks = make(N);
  const res: number[][] = [[], [], []];
  for (let r = 0; r < 7; r++) {
    res[0]!.push(await time(() => consume(replay(chunks))));
    res[1]!.push(await time(() => consume(wrap(replay(chunks), {}))));
    res[2]!.push(await time(() => consume(wrap(replay(chunks), { idleTimeoutMs: 0 }))));
  }
  const med = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1]!;
  const diffs = res[1]!.map((v, i) => v - res[0]![i]!);
  const diffsOff = res[2]!.map((v, i) => v - res[0]![i]!);
  console.log(
    name,
    'base',
    med([...res[0]!]).toFixed(0),
    'added on',
    med(diffs).toFixed(0),
    'off',
    med(diffsOff).toFixed(0),
  );
}
