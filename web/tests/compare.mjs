// The playground agrees with the native binary: for every profile file given, the WebAssembly
// module embedded in playground.html answers exactly what `svcgen validate - --format json` and
// `svcgen render - -t TARGET` print (stdout and exit status), run in the file's folder as a user
// would. The one exception is host files: the browser has no file system, so a native W0310
// (host path missing) has no counterpart; such entries are left out of both sides.
//
//   node web/tests/compare.mjs OUT/playground.html path/to/svcgen FILE...
//
// Plain Node (18 or later), no package. Exits 1 and lists every difference.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadPlayground } from './wasm.mjs';

const [page, given, ...files] = process.argv.slice(2);
const binary = given && path.resolve(given);
if (!page || !binary || files.length === 0) {
  console.error('usage: node compare.mjs PLAYGROUND_HTML SVCGEN_BINARY FILE...');
  process.exit(2);
}
const HOST_FILE_CODE = 'W0310';
const TARGETS = ['dotenv', 'compose', 'k8s-env', 'k8s'];
const html = fs.readFileSync(page, 'utf8');
let playground = await loadPlayground(html);

function native(args, input, cwd) {
  const run = spawnSync(binary, args, { input, cwd, maxBuffer: 64 << 20 });
  if (run.error) throw run.error;
  return { stdout: run.stdout.toString('utf8'), status: run.status };
}

const withoutHostFiles = (text) => JSON.parse(text).filter((d) => d.code !== HOST_FILE_CODE);
const problems = [];
let compared = 0;
const notCompared = [];
let slowest = { ms: 0, file: '' };
for (const file of files) {
  const bytes = fs.readFileSync(file);
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    problems.push(`${file}: not UTF-8 text (a textarea cannot hold it)`);
    continue;
  }
  const cwd = path.dirname(path.resolve(file));
  const started = performance.now();
  let answer;
  try {
    answer = playground.answer(text);
  } catch (error) {
    // A trap: a panic, or a call wasm32-unknown-unknown does not have (Instant::now and
    // thread::spawn panic there). The instance is unusable after it: start a fresh one.
    problems.push(`${file}: the module trapped (${error}): a panic, or a clock or thread in the core`);
    playground = await loadPlayground(html);
    continue;
  }
  const ms = performance.now() - started;
  if (ms > slowest.ms) slowest = { ms, file };
  if (answer.extends.length > 0) {
    // Checked natively over files the browser cannot read (its extends bases, the base its
    // overlay-of directive names): the page says so, and renders and checks only this layer.
    notCompared.push(`${file} (over ${answer.extends.join(', ')})`);
    compared += 1;
    continue;
  }
  const validate = native(['validate', '-', '--format', 'json'], bytes, cwd);
  const hostFiles = withoutHostFiles(validate.stdout).length !== JSON.parse(validate.stdout).length;
  if (hostFiles) {
    const want = JSON.stringify(withoutHostFiles(validate.stdout), null, 1);
    const got = JSON.stringify(withoutHostFiles(answer.validate), null, 1);
    if (want !== got) problems.push(`${file}: validate differs (host-file entries left out)\n--- native\n${want}\n--- wasm\n${got}`);
  } else if (validate.stdout !== answer.validate) {
    problems.push(`${file}: validate differs\n--- native\n${validate.stdout}--- wasm\n${answer.validate}`);
  }
  const validateExit = hostFiles ? (withoutHostFiles(validate.stdout).some((d) => d.severity === 'error') ? 1 : 0) : validate.status;
  if (validateExit !== answer.validate_exit) {
    problems.push(`${file}: validate exits ${validate.status} natively, ${answer.validate_exit} in wasm`);
  }
  for (const target of TARGETS) {
    const render = native(['render', '-', '-t', target], bytes, cwd);
    const got = answer.targets[target];
    if (render.stdout !== (got.text ?? '') || render.status !== got.exit) {
      problems.push(`${file}: render -t ${target} differs (exit ${render.status} natively, ${got.exit} in wasm)\n--- native\n${render.stdout}--- wasm\n${got.text ?? ''}`);
    }
  }
  compared += 1;
}
console.log(`compared ${compared} of ${files.length} files with ${binary}; slowest answer ${slowest.ms.toFixed(1)} ms (${slowest.file})`);
if (notCompared.length > 0) console.log(`not compared (their bases need a file system): ${notCompared.join(', ')}`);
if (problems.length > 0) {
  console.error(`${problems.length} difference(s):\n\n${problems.join('\n\n')}`);
  process.exit(1);
}
