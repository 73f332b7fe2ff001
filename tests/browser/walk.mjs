// Walks the ProtoXplore web app in a real headless chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): overview -> a victim -> Levels 1..6 by clicking -> the culprit page, plus the
// methods, windows and canned-query pages. On every page: each chart is drawn by Plotly
// (.js-plotly-plot with a .main-svg) and its toolbar covers no title, the console shows no error,
// no dialog opens (a hostile description that ran script would open one), and no two labels of a
// Sankey overlap. Screenshots go to the folder given.
//
// usage: node walk.mjs CONFIG_JSON
//   {"base": "http://127.0.0.1:PORT", "start": "/analysis/ID", "screenshots": "/path", "extra": ["http://...", ...],
//    "sankeys": ["http://...victim page", ...]}  (start: the overview to walk from; "/" shows the latest)
// prints a JSON summary; exits 1 on any problem.
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

const config = JSON.parse(process.argv[2]);
const problems = [];
const visited = [];
const shots = [];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(30000);
page.on("console", (msg) => { if (msg.type() === "error") problems.push(`console error on ${page.url()}: ${msg.text()}`); });
page.on("pageerror", (err) => problems.push(`page error on ${page.url()}: ${err.message}`));
page.on("dialog", async (dialog) => { problems.push(`dialog opened on ${page.url()}: ${dialog.message()}`); await dialog.dismiss(); });
page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
// every page comes with its Content-Security-Policy (a violation shows as a console error above)
page.on("response", (res) => {
  if (res.request().isNavigationRequest() && !res.headers()["content-security-policy"]) {
    problems.push(`no Content-Security-Policy on ${res.url()}`);
  }
});
page.on("request", (req) => {
  const url = new URL(req.url());
  if (!["127.0.0.1", "localhost"].includes(url.hostname) && url.protocol !== "data:") {
    problems.push(`request outside the app: ${req.url()}`);
  }
});

async function settled(label) {
  await page.waitForLoadState("load");
  // Columns loaded after the page is shown (the methods page) bring charts of their own: wait for them.
  if (await page.locator(".method[data-src]").count()) {
    try {
      await page.waitForSelector(".method[data-src]:not([data-loaded])", { state: "detached", timeout: 60000 });
    } catch (e) { problems.push(`${label}: its columns did not load (${page.url()})`); }
  }
  const expected = await page.locator(".chart[data-figure]").count();
  if (expected > 0) {
    try {
      await page.waitForSelector(`body[data-charts="${expected}"]`, { timeout: 30000 });
    } catch (e) {
      problems.push(`${label}: charts not all drawn (${page.url()})`);
    }
  }
  const drawn = await page.locator(".chart .js-plotly-plot, .chart.js-plotly-plot").count();
  const svgs = await page.locator(".chart .main-svg").count();
  if (drawn !== expected) problems.push(`${label}: ${drawn} of ${expected} charts have .js-plotly-plot`);
  if (expected > 0 && svgs < expected) problems.push(`${label}: only ${svgs} .main-svg for ${expected} charts`);
  // Plotly's toolbar (shown on hover) must never cover a chart's title: each chart is hovered first
  // (Plotly lays the toolbar out on the first hover: a box plot's wrapped onto two rows over its title)
  for (const chart of await page.locator(".chart .main-svg").all()) {
    await chart.hover({ timeout: 2000, force: true })
      .catch((e) => problems.push(`${label}: a chart could not be hovered, so its toolbar was not checked: ${e}`));
  }
  const covered = await page.evaluate(() => {
    const out = [];
    document.querySelectorAll(".chart").forEach((chart) => {
      const bar = chart.querySelector(".modebar");
      const title = chart.querySelector(".gtitle");
      if (!bar || !title) return;
      const a = bar.getBoundingClientRect(), b = title.getBoundingClientRect();
      if (a.width && b.width && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
        out.push(`${chart.id} ("${title.textContent}")`);
      }
    });
    return out;
  });
  for (const c of covered) problems.push(`${label}: the Plotly toolbar covers the title of ${c} (${page.url()})`);
  // Sankey labels (cut to the room between columns, pads taller than a line) never overlap
  if (await page.locator(".sankey-node").count()) {
    await page.waitForTimeout(800);  // Plotly moves the nodes into place for 500 ms
    const overlaps = await page.evaluate(() => {
      const out = [];
      document.querySelectorAll(".chart").forEach((chart) => {
        const boxes = [...chart.querySelectorAll(".sankey-node .node-label")]
          .map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() })).filter((b) => b.r.width);
        boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
          if (a.r.left < b.r.right && b.r.left < a.r.right && a.r.top < b.r.bottom && b.r.top < a.r.bottom) {
            out.push(`"${a.text}" / "${b.text}"`);
          }
        }));
      });
      return out;
    });
    for (const o of overlaps) problems.push(`${label}: Sankey labels overlap: ${o} (${page.url()})`);
  }
  visited.push({ label, url: page.url(), charts: expected, drawn, title: await page.title() });
  return expected;
}

async function shot(name) {
  if (!config.screenshots) return;
  fs.mkdirSync(config.screenshots, { recursive: true });
  const file = path.join(config.screenshots, name);
  await page.screenshot({ path: file, fullPage: true });
  shots.push(file);
}

async function clickAndWait(locator) {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), locator.click()]);
}

try {
  await page.goto(config.base + (config.start || "/"), { waitUntil: "load" });
  await settled("overview");
  await shot("overview.png");

  await clickAndWait(page.locator("a.victim-link").first());
  let charts = await settled("victim L0");
  // The what-if predictions arrive after the page (a replay): they must load, and say "Without ...".
  try {
    await page.waitForSelector('#whatif-body[data-loaded="1"] #whatif-sentences', { timeout: 30000 });
    const said = await page.locator("#whatif-sentences li").first().textContent();
    if (!/^Without .* would have finished about .* sooner/.test(said)) problems.push(`what-if says: ${said}`);
  } catch (e) { problems.push(`the what-if predictions did not load on the victim page: ${e}`); }
  await shot("victim.png");
  const levels = [];
  for (let level = 1; level <= 6; level++) {
    const shown = await page.locator("#walk-level").getAttribute("data-level");
    if (Number(shown) !== level) { problems.push(`expected Level ${level} on the walk, found ${shown}`); break; }
    levels.push(level);
    if (level > 1) await shot(`walk-level-${level}.png`);
    const drill = page.locator(`#walk-table a.drill[data-level="${level}"]`).first();
    if (await drill.count() === 0) { problems.push(`no row to click at Level ${level}`); break; }
    await clickAndWait(drill);
    await settled(`walk after Level ${level}`);
  }
  if (await page.locator("#reached-culprit").count() !== 1) problems.push("the walk did not reach a culprit query (Level 6)");
  const crumbs = await page.locator("#breadcrumb a").count();
  if (crumbs !== 6) problems.push(`breadcrumb has ${crumbs} links at Level 6, expected 6`);
  await shot("walk-level-6-culprit.png");
  await clickAndWait(page.locator("#culprit-page"));
  await settled("culprit");
  await shot("culprit.png");

  // back up the breadcrumb: go to the victim again, drill once, then click the L0 crumb
  await page.goBack({ waitUntil: "load" });
  await clickAndWait(page.locator('#breadcrumb a[data-level="2"]'));
  await settled("breadcrumb back to Level 2");
  if ((await page.locator("#walk-level").getAttribute("data-level")) !== "3") problems.push("breadcrumb to L2 does not show Level 3");
  await clickAndWait(page.locator('#breadcrumb a[data-level="0"]'));
  await settled("breadcrumb back to the victim");

  await clickAndWait(page.locator("#methods-link"));
  // The methods other than the ProtoGraph's arrive as fragments, each with its chart.
  // (a selector, not waitForFunction: that evaluates a string, which the page's CSP forbids)
  try {
    await page.waitForSelector(".method[data-src]:not([data-loaded])", { state: "detached", timeout: 60000 });
    const failed = await page.locator('.method[data-loaded="error"]').count();
    if (failed) problems.push(`${failed} methods' columns failed to load`);
  } catch (e) { problems.push(`the methods' columns did not load: ${e}`); }
  await settled("methods");
  await shot("methods.png");
  await page.goBack({ waitUntil: "load" });
  await clickAndWait(page.locator("#windows-link"));
  await page.locator('#windows-form input[name="windows"]').fill("3");
  await clickAndWait(page.locator('#windows-form button[type="submit"]'));
  await settled("windows");
  await shot("windows.png");

  await page.goto(config.base + "/queries", { waitUntil: "load" });
  await settled("queries");
  await clickAndWait(page.locator('a[href="/queries/top_paths"]'));
  // the form carries the latest analysis; fill the victim from the overview's first hint
  await settled("query form");
  await page.goto(config.base + "/queries/hot_resources", { waitUntil: "load" });
  await clickAndWait(page.locator('#query-form button[type="submit"]'));
  await settled("query result");
  if (await page.locator("#result tbody tr").count() < 1) problems.push("the canned query shows no result rows");
  await shot("canned-query.png");

  for (const url of config.extra || []) {
    await page.goto(url, { waitUntil: "load" });
    await settled(`extra ${url}`);
  }
  // a real log's victim with long names on its Sankey (its labels are checked by settled)
  for (const url of config.sankeys || []) {
    await page.goto(url, { waitUntil: "load" });
    if (!(await page.locator("#chart-sankey .sankey-node").count())) problems.push(`no Sankey on ${url}`);
    await settled(`sankey ${url}`);
    await shot("sankey-real.png");
  }
  // a live analysis's page: it looks for a new generation every 2 s and reloads only when there is
  // one (a reload on a clock reset the reader's chart zoom and hover)
  if (config.live) {
    await page.goto(config.live, { waitUntil: "load" });
    await settled("live overview");
    await page.evaluate(() => { window.kept = "this page"; });
    try {
      await page.waitForSelector('meta[name="live-check"][data-looked="2"]', { state: "attached", timeout: 20000 });
    } catch (e) { problems.push(`the live page did not look for a new generation twice: ${e}`); }
    if (await page.evaluate(() => window.kept) !== "this page") problems.push("the live page reloaded with nothing new");
    // as if the watch had published since: the next look finds another version and reloads
    await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: 20000 }),
                       page.evaluate(() => document.querySelector('meta[name="live-check"]').setAttribute("data-version", "older"))])
      .catch((e) => problems.push(`the live page did not reload on a new version: ${e}`));
    if (await page.evaluate(() => window.kept) === "this page") problems.push("the live page kept its old version");
  }
  await page.goto(config.base + "/analysis/none", { waitUntil: "load" });
  if (!(await page.content()).includes("no analysis")) problems.push("404 page lacks its message");
  visited.push({ label: "levels", levels, charts });
} catch (err) {
  problems.push(`walk failed: ${err.stack || err}`);
}
// a 404 page logs "Failed to load resource" for its own status: that one is expected
const real = problems.filter((p) => !(p.includes("/analysis/none") && p.includes("404")));
await browser.close();
// exit once written: process.exit right after a large write to a pipe cuts it off
process.stdout.write(JSON.stringify({ problems: real, visited, screenshots: shots }, null, 1) + "\n",
                     () => process.exit(real.length ? 1 : 0));
