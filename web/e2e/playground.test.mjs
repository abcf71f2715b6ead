// End-to-end test of the site in headless Chromium, opened from file:// with every non-file
// request refused: types into the playground as a user would, checks that a diagnostic appears
// at the right line and that clicking it selects that line, that every target's output is what
// the native binary prints for the same text, that the example picker works, and that the
// reference has an element per variable with working links. Keeps screenshots.
//
//   node playground.test.mjs SITE_DIR SVCGEN_BINARY EXAMPLES_DIR SCREENSHOT_DIR
//
// The browser is Debian's chromium (CHROMIUM or `command -v chromium`); playwright-core
// downloads none. Exits 1 on the first failed check, saying what differed.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const [siteDir, binaryArg, examplesDir, shots] = process.argv.slice(2);
if (!shots) {
  console.error('usage: node playground.test.mjs SITE_DIR SVCGEN_BINARY EXAMPLES_DIR SCREENSHOT_DIR');
  process.exit(2);
}
const binary = path.resolve(binaryArg);
const HOST_FILE_CODE = 'W0310';
const TARGETS = ['dotenv', 'compose', 'k8s-env', 'k8s'];
const executablePath = process.env.CHROMIUM ||
  execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
fs.mkdirSync(shots, { recursive: true });

function check(ok, what) {
  if (!ok) throw new Error(what);
}

// What the native binary prints for `text`, run in the examples' folder (where the host files
// are); the browser has no file system, so its host-file entries are left out.
function native(text) {
  const run = (args) => {
    const r = spawnSync(binary, args, { input: text, cwd: examplesDir, encoding: 'utf8' });
    if (r.error) throw r.error;
    return r;
  };
  const diagnostics = JSON.parse(run(['validate', '-', '--format', 'json']).stdout)
    .filter((d) => d.code !== HOST_FILE_CODE);
  const targets = Object.fromEntries(TARGETS.map((t) => [t, run(['render', '-', '-t', t]).stdout]));
  return { diagnostics, targets };
}

async function shownDiagnostics(page) {
  return page.$$eval('#diagnostics li', (items) => items.map((li) => ({
    code: li.dataset.code,
    line: li.dataset.line === undefined ? null : Number(li.dataset.line),
    severity: li.dataset.severity,
    message: li.querySelector('.message').textContent,
  })));
}

// The page shows exactly what the binary prints for the textarea's current text.
async function agreesWithNative(page, when) {
  const text = await page.inputValue('#profile');
  const want = native(text);
  const shown = await shownDiagnostics(page);
  const expected = want.diagnostics.map((d) => ({ code: d.code, line: d.line, severity: d.severity, message: d.message }));
  check(JSON.stringify(shown) === JSON.stringify(expected),
    `${when}: diagnostics differ\nshown: ${JSON.stringify(shown, null, 1)}\nnative: ${JSON.stringify(expected, null, 1)}`);
  for (const target of TARGETS) {
    const got = await page.textContent(`pre[data-target="${target}"]`);
    check(got === want.targets[target], `${when}: ${target} differs\n--- page\n${got}\n--- native\n${want.targets[target]}`);
  }
  return shown;
}

const browser = await chromium.launch({
  executablePath,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-default-apps', '--disable-sync', '--no-first-run'],
});
const refused = [];
const pageErrors = [];
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  // No network: only the page's own file may load.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file://')) return route.continue();
    refused.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  const playground = 'file://' + path.resolve(siteDir, 'playground.html');
  await page.goto(playground);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('pre[data-target="dotenv"]').textContent.length > 0);

  const start = await agreesWithNative(page, 'the first example');
  check(!start.some((d) => d.severity === 'error'), 'the page starts from an invalid example');

  // Type a wrong key at the end, key by key: every input event answers.
  await page.click('#profile');
  await page.keyboard.press('Control+End');
  const before = await page.inputValue('#profile');
  await page.keyboard.type('\nbogus_key = 1', { delay: 5 });
  const typed = await agreesWithNative(page, 'after typing');
  const line = (before + '\nbogus_key = 1').split('\n').length;
  const wrong = typed.find((d) => d.line === line && d.severity === 'error');
  check(wrong !== undefined, `no error at line ${line} after typing: ${JSON.stringify(typed)}`);
  const outputs = await page.$$eval('pre[data-target]', (pres) => pres.map((p) => p.textContent));
  check(outputs.every((o) => o === ''), 'outputs still shown for an invalid profile');
  await page.screenshot({ path: path.join(shots, 'playground-error.png'), fullPage: true });

  // Clicking the diagnostic selects its line.
  await page.click(`#diagnostics li[data-code="${wrong.code}"][data-line="${line}"]`);
  const selected = await page.$eval('#profile', (t) => t.value.slice(t.selectionStart, t.selectionEnd));
  check(selected === 'bogus_key = 1', `clicking the diagnostic selected ${JSON.stringify(selected)}`);

  // Removing it makes the profile valid again.
  await page.keyboard.press('Control+End');
  for (let i = 0; i < '\nbogus_key = 1'.length; i++) await page.keyboard.press('Backspace');
  check(await page.inputValue('#profile') === before, 'deleting the typed line left other text');
  const fixed = await agreesWithNative(page, 'after deleting the line');
  check(!fixed.some((d) => d.severity === 'error'), 'still invalid after deleting the line');

  // Another example from the picker.
  const count = await page.$$eval('#example option', (o) => o.length);
  await page.selectOption('#example', String(count - 1));
  await agreesWithNative(page, 'the last example');
  for (const target of TARGETS) {
    const text = await page.textContent(`pre[data-target="${target}"]`);
    check(text.length > 0, `the last example renders no ${target}`);
  }
  // A profile with host files: the page says once that their checks were skipped.
  const names = await page.$$eval('#example option', (o) => o.map((x) => x.textContent));
  const withHostFiles = names.indexOf('a-ldap-plugins.toml');
  check(withHostFiles >= 0, `no a-ldap-plugins.toml in the picker: ${names.join(', ')}`);
  await page.selectOption('#example', String(withHostFiles));
  await agreesWithNative(page, 'a-ldap-plugins.toml');
  const notes = await page.textContent('#notes');
  check((notes.match(/Host-file checks were skipped/g) || []).length === 1, `host files not noted once: ${notes}`);
  const ms = Number(await page.getAttribute('#status', 'data-ms'));
  await page.screenshot({ path: path.join(shots, 'playground.png'), fullPage: true });

  // The reference: an element per variable, with its facts, and links that lead somewhere.
  await page.goto('file://' + path.resolve(siteDir, 'index.html'));
  const facts = await page.$eval('#CN_CONFIG_ADAPTER', (e) => e.textContent);
  for (const word of ['config.adapter', 'Type', 'Default', 'Allowed values', 'Editions']) {
    check(facts.includes(word), `#CN_CONFIG_ADAPTER does not show ${word}`);
  }
  const links = await page.$$eval('.related a', (a) => a.map((x) => x.getAttribute('href')));
  check(links.length > 0, 'the reference links no related variable');
  const missing = await page.evaluate((hrefs) => hrefs.filter((h) => !document.getElementById(h.slice(1))), links);
  check(missing.length === 0, `related links lead nowhere: ${missing.join(', ')}`);
  await page.click('.related a');
  check((await page.evaluate(() => location.hash)).length > 1, 'a related link does not navigate');
  await page.screenshot({ path: path.join(shots, 'reference.png') });

  check(refused.length === 0, `the pages asked for the network: ${refused.join(', ')}`);
  check(pageErrors.length === 0, `errors in the page: ${pageErrors.join('; ')}`);
  console.log(`playground and reference work from file:// in ${executablePath}; last answer ${ms} ms; screenshots in ${shots}`);
} finally {
  await browser.close();
}
