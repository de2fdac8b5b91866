// A headless Chromium for felt's browser tests, driven line by line: each
// line on stdin is a JSON command, each answer a JSON line on stdout
// ({"ok": true, "value": ...} or {"ok": false, "error": "..."}). The Rust
// test (services/felt/tests/display.rs) starts it, so one test can both
// drive the services over gRPC and watch the pages change.
//
// Commands: open {tab, url, width, height}, text {tab, selector},
// wait {tab, selector, contains | equals, timeout}, fill {tab, selector, value},
// screenshot {tab, path}, close.
//
// Needs playwright-core (FELT_PLAYWRIGHT: its folder) and Chromium
// (FELT_CHROMIUM, default /usr/bin/chromium); scripts/test installs both.
'use strict';
const readline = require('node:readline');
const { chromium } = require(process.env.FELT_PLAYWRIGHT || 'playwright-core');

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.FELT_CHROMIUM || '/usr/bin/chromium',
    // No sandbox as root; no background traffic on a closed network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const tabs = new Map();
  const tab = (name) => {
    const page = tabs.get(name);
    if (!page) throw new Error('no tab ' + JSON.stringify(name));
    return page;
  };
  const run = async (c) => {
    switch (c.op) {
      case 'open': {
        let page = tabs.get(c.tab);
        if (!page) { page = await context.newPage(); tabs.set(c.tab, page); }
        if (c.width) await page.setViewportSize({ width: c.width, height: c.height });
        const response = await page.goto(c.url, { waitUntil: 'load' });
        return response ? response.status() : 0;
      }
      case 'text':
        return await tab(c.tab).locator(c.selector).innerText();
      case 'wait': {
        const page = tab(c.tab);
        try {
          await page.waitForFunction(([selector, contains, equals]) => {
            const e = document.querySelector(selector);
            if (!e) return false;
            return equals === null ? e.innerText.includes(contains) : e.innerText.trim() === equals;
          }, [c.selector, c.contains ?? '', c.equals ?? null], { timeout: c.timeout || 15000, polling: 100 });
        } catch (e) {
          const now = await page.locator(c.selector).innerText().catch(() => '(absent)');
          throw new Error(`${c.selector} never showed ${JSON.stringify(c.equals ?? c.contains)}; it shows ${JSON.stringify(now)}`);
        }
        return null;
      }
      case 'fill':
        await tab(c.tab).locator(c.selector).fill(c.value);
        return null;
      case 'screenshot':
        await tab(c.tab).screenshot({ path: c.path, fullPage: false });
        return c.path;
      case 'close':
        await browser.close();
        return null;
      default:
        throw new Error('unknown op ' + JSON.stringify(c.op));
    }
  };
  const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');
  say({ ok: true, value: 'ready' });
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let c;
    try { c = JSON.parse(line); } catch (e) { say({ ok: false, error: 'not JSON: ' + line }); continue; }
    try {
      say({ ok: true, value: await run(c) });
    } catch (e) {
      say({ ok: false, error: String(e && e.message || e) });
    }
    if (c.op === 'close') break;
  }
  await browser.close().catch(() => {});
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ ok: false, error: 'cannot start: ' + (e && e.message || e) }) + '\n');
  process.exit(1);
});
