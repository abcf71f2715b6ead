// Benchmark (not a test): time per edit in headless Chromium, as the page measures it (the
// status line's data-ms: the call into svcgen and the JSON decoding, before the DOM updates),
// for each bundled example, over 20 typed characters.
//
//   node speed.mjs SITE_DIR
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const site = process.argv[2];
const executablePath = process.env.CHROMIUM ||
  execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const page = await browser.newPage();
  await page.goto('file://' + path.resolve(site, 'playground.html'));
  await page.waitForSelector('body[data-ready="true"]');
  const names = await page.$$eval('#example option', (o) => o.map((x) => x.textContent));
  for (let i = 0; i < names.length; i++) {
    await page.selectOption('#example', String(i));
    await page.click('#profile');
    await page.keyboard.press('Control+End');
    const times = [];
    for (let k = 0; k < 20; k++) {
      await page.keyboard.type(k % 2 ? '\n' : '#');
      times.push(Number(await page.getAttribute('#status', 'data-ms')));
    }
    // The whole edit with the page's update: type one character and wait for the next frame.
    const whole = await page.evaluate(() => new Promise((done) => {
      const t = document.getElementById('profile');
      const started = performance.now();
      t.value += '#';
      t.dispatchEvent(new Event('input'));
      requestAnimationFrame(() => done(performance.now() - started));
    }));
    times.sort((a, b) => a - b);
    console.log(`${names[i]}: answer median ${times[10].toFixed(1)} ms, worst ${times[19].toFixed(1)} ms; one edit to the next frame ${whole.toFixed(1)} ms`);
  }
} finally {
  await browser.close();
}
