// Plays the ProtoXplore guide in Neo4j Browser, served by the Neo4j server itself, in a real headless
// chromium (Debian's /usr/bin/chromium, driven by playwright-core): open the deep link the web app
// printed (?cmd=play&arg=<guide URL>), log in over Bolt, run the guide's first slide (:params), then
// each next slide's query with its play icon: slow nodes, hot resources, top paths (tables) and the
// victim's walk (a graph view). Screenshots of each result frame go to the folder given.
//
// usage: node neo4j_browser.mjs CONFIG_JSON
//   {"link": "http://127.0.0.1:PORT/browser/?cmd=play&arg=...", "bolt": "bolt://127.0.0.1:PORT",
//    "user": "neo4j", "password": "...", "slides": 5, "screenshots": "/path"}
// prints a JSON summary {"slides": [...], "problems": [...]}; exits 1 on any problem.
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

const config = JSON.parse(process.argv[2]);
const problems = [];
const slides = [];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
const page = await context.newPage();
page.setDefaultTimeout(30000);
page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
// Browser also calls neo4j.com (telemetry, news) which this machine cannot reach: only failures
// of local requests (the guide, Bolt, the HTTP API) count.
// Browser also probes the Bolt port over HTTP, which answers nothing.
const bolt = new URL(config.bolt.replace(/^bolt:/, "http:"));
page.on("requestfailed", (req) => {
  const url = new URL(req.url());
  if (["127.0.0.1", "localhost"].includes(url.hostname) && url.port !== bolt.port) {
    problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
  }
});

fs.mkdirSync(config.screenshots, { recursive: true });
const shot = (target, name) => target.screenshot({ path: path.join(config.screenshots, name) });

try {
  await page.goto(config.link);
  // The guide plays at once (its URL is on Browser's built-in allowlist), beside the login form.
  const guide = page.locator('[data-testid="frame"]', { has: page.locator("pre.runnable") }).first();
  await guide.waitFor();
  await page.fill('[data-testid="username"]', config.user);
  await page.fill('[data-testid="password"]', config.password);
  await page.click('[data-testid="connect"]');
  await page.getByText("You are connected as user").waitFor();
  for (let i = 0; i < config.slides; i++) {
    const block = guide.locator("pre.runnable").filter({ visible: true }).first();
    const code = (await block.textContent()).trim();
    const title = (await guide.locator("h3").filter({ visible: true }).first().textContent()).trim();
    const before = await page.locator('[data-testid="frame"]').count();
    await block.locator("i.fa-play-circle-o").click();  // the play icon runs the block
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="frame"]').length > n, before);
    const frame = page.locator('[data-testid="frame"]').first();  // new frames open on top
    // Done when Browser reports the records streamed (table) or nodes displayed (graph), shows the
    // parameters, or an error.
    await frame.getByText(/Started streaming|Displaying \d+ nodes|ERROR|:param /).first().waitFor();
    // A multi-statement frame (the :param slide) lists its statements at once and runs them after:
    // the next slide's query needs them done, so wait until none is waiting or running.
    const statuses = frame.locator('[data-testid="multi-statement-list-icon"]');
    const titles = () => statuses.evaluateAll((icons) => icons.map((icon) => icon.title));
    for (const end = Date.now() + 30000; (await titles()).some((t) => /waiting|pending|running/i.test(t));) {
      if (Date.now() > end) throw new Error(`statements still running after 30 s: ${await titles()}`);
      await page.waitForTimeout(100);
    }
    const failed = (await titles()).filter((status) => !/success/i.test(status));
    if (await frame.locator('[data-testid="cypherFrameSidebarVisualization"]').count()) {
      await frame.locator("svg g.node").first().waitFor({ state: "attached" });  // results with nodes open as a graph
      await page.waitForTimeout(3000);  // let the force layout settle before the screenshot
    } else {
      await page.waitForTimeout(500);
    }
    const text = await frame.innerText();
    const message = frame.locator('[data-testid="cypherFrameErrorMessage"]');
    const error = failed.length ? `statements ${failed.join(", ")}`
      : await message.count() ? await message.first().innerText()
      : /^ERROR/m.test(text) ? text.slice(text.search(/^ERROR/m)) : null;
    const labels = await frame.locator('[data-testid^="property-details-overview-node-label-"]').allTextContents();
    const summary = {
      title, command: code.split("\n")[0],
      error,
      text: text.slice(0, 4000),
      nodes: await frame.locator("svg g.node").count(),
      relationships: await frame.locator("svg g.relationship").count(),
      labels: labels.map((l) => l.replace(/\s*\(\d+\)\s*$/, "").trim()),
      screenshot: `neo4j-browser-${i + 1}.png`,
    };
    await shot(frame, summary.screenshot);
    slides.push(summary);
    if (summary.error) problems.push(`${title}: ${summary.error.slice(0, 300)}`);
    if (i + 1 < config.slides) await guide.locator('[data-testid="nextSlide"]').click();
    await page.waitForTimeout(300);
  }
  await shot(page, "neo4j-browser-guide.png");
} catch (e) {
  problems.push(`walk stopped: ${e.message.split("\n")[0]}`);
  await shot(page, "neo4j-browser-failure.png").catch(() => {});
}
await browser.close();
console.log(JSON.stringify({ slides, problems }, null, 1));
process.exit(problems.length ? 1 : 0);
