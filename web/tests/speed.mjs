// Benchmark (not a test): how long the playground's module takes to answer one edit, per
// bundled example, after the first answer (which also compiles the templates). Prints the
// median and the worst of RUNS answers per example.
//
//   node web/tests/speed.mjs OUT/playground.html [RUNS]
import fs from 'node:fs';
import path from 'node:path';
import { loadPlayground } from './wasm.mjs';

const [page, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 30);
const playground = await loadPlayground(fs.readFileSync(page, 'utf8'));
const html = fs.readFileSync(page, 'utf8');
const examples = JSON.parse(/const SVCGEN_EXAMPLES = (.*);\n/.exec(html)[1]);
let started = performance.now();
playground.answer(examples[0].text);
console.log(`module: ${playground.bytes} bytes; first answer ${(performance.now() - started).toFixed(1)} ms`);
for (const { name, text } of examples) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    // An edit: the text with one more character, as typing makes it.
    const edited = text + (i % 2 ? '#' : '');
    started = performance.now();
    playground.answer(edited);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${path.basename(name)}: median ${times[runs >> 1].toFixed(2)} ms, worst ${times[runs - 1].toFixed(2)} ms`);
}
