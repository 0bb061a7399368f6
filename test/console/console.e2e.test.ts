/**
 * The web console in a real browser (Debian's Chromium, driven by playwright-core) against the
 * real service: login and where the token is (and is not), stream paging and deep links, the
 * live tail, scavenge and verify jobs, tenants, users, role-aware controls, re-login, errors,
 * a keyboard-only pass, a reverse proxy with a path prefix, zero WCAG A/AA violations (axe-core)
 * in light and dark, and screenshots of the main pages (test-artifacts/console/).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { appendScavengeWork, scavengeGate, scavengeWorkHidden } from "../helpers/scavenge-gate.js";
import {
  adminPassword,
  axeViolations,
  launchBrowser,
  loginToken,
  rest,
  screenshot,
  startPathProxy,
  startServe,
  type Browser,
  type Served,
} from "./browser.js";

/** Holds a real scavenge between two segments when a test asks (small segments, a test hook). */
const gate = scavengeGate();
let served: Served;
let browser: Browser;
let admin: string;

const consoleUrl = (hash = "") => `${served.baseUrl}console/${hash}`;

async function logIn(page: Page, username = "admin", password = adminPassword): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("navigation", { name: "Sections" }).waitFor();
}

/** A fresh tab at `hash`, logged in. */
async function openConsole(
  hash = "",
  options: { colorScheme?: "light" | "dark"; username?: string; password?: string } = {},
) {
  const page = await browser.newPage({ colorScheme: options.colorScheme });
  await page.goto(consoleUrl(hash));
  await logIn(page, options.username, options.password);
  return page;
}

/** Moves within the page (the token lives in its memory, so never a reload). */
async function show(page: Page, hash: string): Promise<void> {
  await page.evaluate((target) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = target;
  }, hash);
}

function hashOf(page: Page): string {
  return new URL(page.url()).hash;
}

/** Waits until the page's address (a same-document change: no load event) matches `pattern`. */
async function waitForHash(page: Page, pattern: RegExp): Promise<void> {
  await page.waitForFunction(
    (source) =>
      new RegExp(source).test((globalThis as unknown as { location: { hash: string } }).location.hash),
    pattern.source,
  );
}

/** Appends in batches small enough for the test's 16 KiB segments. */
async function append(stream: string, events: unknown[], token = admin): Promise<void> {
  for (let start = 0; start < events.length; start += 25) {
    const answer = await rest(served, "POST", `/v1/streams/${encodeURIComponent(stream)}/append`, {
      token,
      body: { events: events.slice(start, start + 25) },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
}

async function rowCount(page: Page, table: string): Promise<number> {
  return page.getByRole("table", { name: table }).locator("tbody tr").count();
}

before(async () => {
  // The browser first: without Chromium this fails at once, before a service is started that
  // nothing would stop (a rejected Promise.all left it running and the file never ended).
  browser = await launchBrowser();
  served = await startServe({}, gate.engineOptions);
  admin = await loginToken(served, "admin", adminPassword);
  // orders-1: 130 events; revision 5's data as a client wrote it, number spelling and all.
  const events = Array.from({ length: 130 }, (_, i) => ({
    event_type: i % 3 === 0 ? "OrderShipped" : "OrderPlaced",
    data: { order_id: `o-${i}`, amount_cents: 1000 + i },
    metadata: { source: "seed" },
  }));
  await append("orders-1", events.slice(0, 5));
  const raw = await rest(served, "POST", "/v1/streams/orders-1/append", {
    token: admin,
    rawBody: '{"event_type":"PriceSet","data":{"price":1.50,"big":12345678901234567890}}',
  });
  assert.equal(raw.status, 200);
  await append("orders-1", events.slice(6));
  for (let i = 0; i < 23; i++)
    await append(`list-${String(i).padStart(2, "0")}`, [{ event_type: "Made", data: { i } }]);
  for (const [username, tenant, role] of [
    ["alice", "acme", "writer"],
    ["rita", "default", "reader"],
  ] as const) {
    const created = await rest(served, "POST", "/v1/admin/users", {
      token: admin,
      body: { username, password: `${username}-password`, tenant_id: tenant, role },
    });
    assert.equal(created.status, 201);
  }
  // blobs-1: one binary event (bytes that are not UTF-8) with metadata kept as bytes.
  await append("blobs-1", [{ event_type: "Blob", data_base64: "/wD+gA==", metadata_base64: "AQI=" }]);
  const alice = await loginToken(served, "alice", "alice-password");
  await append("carts-1", [{ event_type: "CartOpened", data: { cart: 1 } }], alice);
});

after(async () => {
  await browser?.close();
  await served?.stop();
});

describe("the web console", () => {
  test("the token stays in page memory: never in storage, cookies or the URL", async () => {
    const page = await browser.newPage();
    await page.goto(consoleUrl("#/streams?prefix=orders-"));
    const loginAnswer = page.waitForResponse((response) => response.url().endsWith("/v1/auth/login"));
    await logIn(page);
    const token = ((await (await loginAnswer).json()) as { access_token: string }).access_token;
    assert.ok(token.length > 20);
    // The deep link survived the login.
    assert.equal(hashOf(page), "#/streams?prefix=orders-");
    await page.getByRole("link", { name: "orders-1" }).click();
    await page.getByText("Showing revisions").waitFor();
    await show(page, "#/all");
    await page.getByRole("table", { name: /Events from position/ }).waitFor();
    const stored = await page.evaluate(() => {
      const g = globalThis as unknown as {
        localStorage: { length: number; key(i: number): string | null; getItem(k: string): string | null };
        sessionStorage: { length: number; key(i: number): string | null; getItem(k: string): string | null };
        document: { cookie: string };
        history: { length: number };
      };
      const dump = (storage: typeof g.localStorage) =>
        Array.from(
          { length: storage.length },
          (_, i) => `${storage.key(i)}=${storage.getItem(storage.key(i) ?? "")}`,
        );
      return { local: dump(g.localStorage), session: dump(g.sessionStorage), cookie: g.document.cookie };
    });
    for (const entry of [...stored.local, ...stored.session, stored.cookie])
      assert.ok(!entry.includes(token), entry);
    assert.equal(stored.cookie, "");
    assert.deepEqual(stored.session, []);
    assert.deepEqual(await browser.context.cookies(), []);
    assert.ok(!page.url().includes(token));
    // Logging out forgets everything: the page starts over at the login form, without the address.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "ess console" }).waitFor();
    assert.equal(hashOf(page), "");
    await page.close();
  });

  test("stream pages stay put, and every view is a deep link", async () => {
    const page = await openConsole("#/streams/orders-1");
    await page.getByText("Showing revisions 80–129 of 0–129").waitFor();
    // The newest page is pinned to where it ended.
    assert.equal(hashOf(page), "#/streams/orders-1?from=129&dir=backward");
    await page.getByRole("button", { name: "Older" }).click();
    await page.getByText("Showing revisions 30–79 of 0–129").waitFor();
    const older = page.url();
    assert.equal(hashOf(page), "#/streams/orders-1?from=79&dir=backward");
    // Appends do not move a page, and its link opens the same events in another tab.
    await append("orders-1", [{ event_type: "Late", data: {} }]);
    const other = await browser.newPage();
    await other.goto(older);
    await logIn(other);
    await other.getByText("Showing revisions 30–79 of 0–130").waitFor();
    await other.close();
    await page.getByRole("button", { name: "Oldest" }).click();
    await page.getByText("Showing revisions 0–49").waitFor();
    assert.equal(await page.getByRole("button", { name: "Older" }).isDisabled(), true);
    await page.getByRole("button", { name: "Newer" }).click();
    await page.getByText("Showing revisions 50–99").waitFor();
    await page.getByLabel("Go to revision").fill("120");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByText("Showing revisions 120–130").waitFor();
    await page.getByRole("combobox", { name: "Per page" }).selectOption("10");
    await page.getByText("Showing revisions 120–129").waitFor();
    assert.equal(hashOf(page), "#/streams/orders-1?from=120&dir=forward&limit=10");
    // An event: its fields, its data as stored, and its neighbours.
    await show(page, "#/streams/orders-1/events/5");
    await page.getByText("PriceSet").first().waitFor();
    assert.match(
      await page.locator("pre").first().innerText(),
      /"price": 1\.50,\n {2}"big": 12345678901234567890/,
    );
    await page.getByRole("button", { name: "As stored" }).first().click();
    assert.equal(await page.locator("pre").first().innerText(), '{"price":1.50,"big":12345678901234567890}');
    await page.getByRole("button", { name: "Next event" }).click();
    await waitForHash(page, /events\/6$/);
    await page.getByRole("button", { name: "Previous event" }).and(page.locator(":enabled")).waitFor();
    await page.keyboard.press("[");
    await waitForHash(page, /events\/5$/);
    await page.close();
  });

  test("a binary event shows its bytes as base64, in the stream's rows and in the event view", async () => {
    const page = await openConsole("#/streams/blobs-1");
    await page.getByText("binary, 4 bytes").first().waitFor();
    await show(page, "#/streams/blobs-1/events/0");
    await page.getByText("binary, 4 bytes, shown as base64").waitFor();
    assert.equal(await page.getByLabel("Data, base64", { exact: true }).innerText(), "/wD+gA==");
    assert.equal(await page.getByLabel("Metadata, base64", { exact: true }).innerText(), "AQI=");
    await page.getByRole("button", { name: "Copy data as base64" }).waitFor();
    await page.close();
  });

  test("the streams list filters by prefix and pages by cursor, both in the URL", async () => {
    const page = await openConsole("#/streams?prefix=list-&limit=10");
    const table = "Streams";
    await page.getByRole("link", { name: "list-00" }).waitFor();
    assert.equal(await rowCount(page, table), 10);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("link", { name: "list-10" }).waitFor();
    assert.match(hashOf(page), /cursor=/);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("link", { name: "list-20" }).waitFor();
    assert.equal(await rowCount(page, table), 3);
    assert.equal(await page.getByRole("button", { name: "Next" }).isDisabled(), true);
    await page.getByRole("button", { name: "Previous" }).click();
    await page.getByRole("link", { name: "list-10" }).waitFor();
    await page.getByRole("button", { name: "First page" }).click();
    await page.getByRole("link", { name: "list-00" }).waitFor();
    await page.getByLabel("Stream id starts with").fill("orders-");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("link", { name: "orders-1" }).waitFor();
    assert.equal(await rowCount(page, table), 1);
    // Times: local by default, UTC with the switch, the other clock on hover.
    const updated = page.getByRole("table", { name: table }).locator("time").first();
    assert.doesNotMatch(await updated.innerText(), /Z$/);
    assert.match((await updated.getAttribute("title")) ?? "", /Z UTC$/);
    await page.getByLabel("UTC").check();
    assert.match(await updated.innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match((await updated.getAttribute("title")) ?? "", /local \(UTC[+-]\d\d:\d\d\)$/);
    await page.getByLabel("UTC").uncheck();
    // The theme follows the system unless the operator picks one.
    const backgroundIs = (color: string) =>
      page.waitForFunction((expected) => {
        const g = globalThis as unknown as {
          getComputedStyle(e: unknown): { backgroundColor: string };
          document: { body: unknown };
        };
        return g.getComputedStyle(g.document.body).backgroundColor === expected;
      }, color);
    await backgroundIs("rgb(255, 255, 255)");
    await page.getByLabel("Theme").selectOption("dark");
    await backgroundIs("rgb(19, 22, 27)");
    await page.getByLabel("Theme").selectOption("system");
    // An admin switches tenant: the list (its filter kept) is the other tenant's, and a banner says so.
    await page.getByLabel("Stream id starts with").fill("c");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("combobox", { name: "Tenant" }).fill("acme");
    await page.getByRole("button", { name: "Switch" }).click();
    await page.getByRole("link", { name: "carts-1" }).waitFor();
    assert.match(hashOf(page), /tenant=acme/);
    await page.getByText("Acting in tenant acme").waitFor();
    await page.getByRole("button", { name: "Back to default" }).click();
    await page.getByRole("link", { name: "carts-1" }).waitFor({ state: "detached" });
    assert.doesNotMatch(hashOf(page), /tenant=/);
    await page.close();
  });

  test("a live tail shows events appended through REST, and holds still while the operator reads", async () => {
    await append(
      "tail-1",
      [0, 1, 2].map((n) => ({ event_type: "Tick", data: { n } })),
    );
    const page = await openConsole("#/streams/tail-1/live");
    const table = "Live events of tail-1";
    const status = page
      .getByRole("status")
      .filter({ hasText: /Live|Reading|Connect|paused/ })
      .first();
    await page.getByText("Live", { exact: true }).waitFor();
    assert.equal(await rowCount(page, table), 3);
    await append(
      "tail-1",
      [3, 4].map((n) => ({ event_type: "Tick", data: { n } })),
    );
    await page.getByRole("button", { name: "Open event revision 4" }).waitFor();
    // Selected text holds the rows still; arrivals are counted.
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        document: {
          querySelector(s: string): unknown;
          createRange(): { selectNodeContents(n: unknown): void };
        };
        getSelection(): { removeAllRanges(): void; addRange(r: unknown): void };
      };
      const cell = g.document.querySelector(".live-scroller tbody tr td.preview");
      const range = g.document.createRange();
      range.selectNodeContents(cell);
      g.getSelection().removeAllRanges();
      g.getSelection().addRange(range);
    });
    await page.getByText("paused: text selected").waitFor();
    await append(
      "tail-1",
      [5, 6].map((n) => ({ event_type: "Tick", data: { n } })),
    );
    await page.getByRole("button", { name: "2 new events: show" }).waitFor();
    assert.equal(await rowCount(page, table), 5);
    await page.getByRole("button", { name: "2 new events: show" }).click();
    await page.getByRole("button", { name: "Open event revision 6" }).waitFor();
    assert.equal(await rowCount(page, table), 7);
    // An open event holds it too; closing it shows what came meanwhile.
    await page.getByRole("button", { name: "Open event revision 2" }).click();
    await page.getByRole("heading", { name: "Revision 2" }).waitFor();
    await page.getByText("paused: an event is open").waitFor();
    await append("tail-1", [{ event_type: "Tick", data: { n: 7 } }]);
    await page.getByRole("button", { name: "1 new event: show" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Open event revision 7" }).waitFor();
    // Scrolled away from the newest row: held until the operator scrolls back.
    await append(
      "tail-1",
      Array.from({ length: 40 }, (_, i) => ({ event_type: "Tick", data: { n: 8 + i } })),
    );
    await page.getByRole("button", { name: "Open event revision 47" }).waitFor();
    await page
      .locator(".live-scroller")
      .evaluate((element: { scrollTop: number }) => (element.scrollTop = 0));
    await page.getByText("paused: scrolled away from the newest event").waitFor();
    await append("tail-1", [{ event_type: "Tick", data: { n: 48 } }]);
    await page.getByRole("button", { name: "1 new event: show" }).waitFor();
    await page
      .locator(".live-scroller")
      .evaluate(
        (element: { scrollTop: number; scrollHeight: number }) => (element.scrollTop = element.scrollHeight),
      );
    await page.getByRole("button", { name: "Open event revision 48" }).waitFor();
    assert.ok(await status.count());
    await page.close();
  });

  test("verify and scavenge run as jobs: preview, typed confirmation, progress, result", async () => {
    // Stream "old": 115 of its 120 events hidden by retention, on sealed 16 KiB segments.
    await appendScavengeWork(
      (stream, events) => append(stream, events),
      (stream, max_count) =>
        rest(served, "PUT", `/v1/streams/${stream}/retention`, { token: admin, body: { max_count } }),
    );
    const page = await openConsole("#/operations");
    await page.getByRole("button", { name: "Run verify" }).click();
    await page.getByText("Verify found no error.").waitFor();
    await page.getByRole("button", { name: "Preview scavenge" }).click();
    await page.getByRole("heading", { name: "Preview" }).waitFor();
    const preview = page.getByRole("table", { name: /Streams it would touch/ });
    await preview.getByRole("link", { name: "old" }).waitFor();
    assert.match(
      await preview.getByRole("row", { name: /old/ }).innerText(),
      new RegExp(`old\\s+${scavengeWorkHidden}\\b`),
    );
    await page.getByRole("button", { name: "Scavenge now…" }).click();
    const dialog = page.getByRole("dialog", { name: "Scavenge now?" });
    const confirm = dialog.getByRole("button", { name: "Scavenge", exact: true });
    assert.equal(await confirm.isDisabled(), true);
    await dialog.getByLabel("Type scavenge to confirm").fill("scavenge");
    // The real run is held between two segments, so its progress can be seen.
    const held = gate.hold();
    await confirm.click();
    await held.paused;
    const progress = page.getByRole("progressbar", { name: "Scavenge progress" });
    await progress.waitFor();
    await page.getByText(/^1 of \d+ segments/).waitFor();
    held.release();
    await page.getByText("Scavenge done.").waitFor();
    const removed = page.locator(".field", { has: page.getByText("Events removed", { exact: true }) });
    assert.match(await removed.innerText(), new RegExp(`${scavengeWorkHidden}$`));
    await page.getByRole("table", { name: "Recent jobs" }).getByText("(dry run)").first().waitFor();
    // The page with a preview, a result and jobs listed, for the WCAG check and the eye.
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, "operations-after-scavenge-light");
    await page.close();
  });

  test("tenants show usage, live rates, and each tenant's largest streams", async () => {
    const page = await openConsole("#/tenants");
    const table = page.getByRole("table", { name: "Usage per tenant" });
    await table.getByRole("link", { name: "acme" }).waitFor();
    await table.getByRole("link", { name: "default" }).waitFor();
    // Appends between two polls give a rate.
    const appending = (async () => {
      for (let i = 0; i < 10; i++) {
        await append("rate-1", [{ event_type: "Tick", data: { i } }]);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    await table
      .getByRole("row", { name: /^default/ })
      .getByText(/^\d[\d,.]*\/s$/)
      .first()
      .waitFor({ timeout: 15_000 });
    await appending;
    await table.getByRole("link", { name: "acme" }).click();
    await page.getByRole("heading", { name: "Tenant acme" }).waitFor();
    await page.getByRole("table", { name: "Largest streams" }).getByRole("link", { name: "carts-1" }).click();
    // An admin sees another tenant's stream, and is told it is another tenant.
    await page.getByText("Acting in tenant acme").waitFor();
    await page.getByText("Showing revision 0 of 0–0").waitFor();
    await page.close();
  });

  test("an admin creates and deletes a user", async () => {
    const page = await openConsole("#/users");
    await page.getByRole("heading", { name: "Create a user" }).waitFor();
    const form = page.locator("form.stacked");
    await form.getByLabel("Username").fill("bob");
    await form.getByLabel("Password").fill("bob-password-1");
    await form.getByLabel("Tenant").fill("globex");
    await form.getByLabel("Role").selectOption("writer");
    await form.getByRole("button", { name: "Create user" }).click();
    const row = page.getByRole("table", { name: "Users" }).getByRole("row", { name: /^bob/ });
    await row.waitFor();
    assert.match(await row.innerText(), /globex\s+writer/);
    // A second create of the same name fails with its code, and the form stays usable.
    await form.getByLabel("Username").fill("bob");
    await form.getByLabel("Password").fill("bob-password-1");
    await form.getByRole("button", { name: "Create user" }).click();
    await page.getByRole("alert").getByText("USER_EXISTS").waitFor();
    await row.getByRole("button", { name: "Delete user bob" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this user?" });
    await dialog.getByLabel("Type bob to confirm").fill("bob");
    await dialog.getByRole("button", { name: "Delete user" }).click();
    await row.waitFor({ state: "detached" });
    assert.equal(
      (
        await rest(served, "POST", "/v1/auth/login", {
          body: { username: "bob", password: "bob-password-1" },
        })
      ).status,
      401,
    );
    await page.close();
  });

  test("a reader sees what its role cannot do disabled", async () => {
    const page = await openConsole("#/streams/orders-1/info", {
      username: "rita",
      password: "rita-password",
    });
    await page.getByRole("heading", { name: "Retention" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Save retention" }).isDisabled(), true);
    assert.equal(await page.getByRole("button", { name: "Delete stream…" }).isDisabled(), true);
    assert.equal(
      await page
        .getByRole("navigation", { name: "Sections" })
        .getByRole("link", { name: "Operations" })
        .count(),
      0,
    );
    await show(page, "#/users");
    await page.getByRole("heading", { name: "Needs role admin" }).waitFor();
    await page.close();
  });

  test("a refused token opens the re-login dialog, and the page stays as it was", async () => {
    await rest(served, "POST", "/v1/admin/users", {
      token: admin,
      body: { username: "temp", password: "temp-password", tenant_id: "default", role: "reader" },
    });
    const page = await openConsole("#/streams/orders-1?from=79&dir=backward", {
      username: "temp",
      password: "temp-password",
    });
    await page.getByText("Showing revisions 30–79").waitFor();
    // Deleted and created again: its tokens are refused from now on.
    await rest(served, "DELETE", "/v1/admin/users/temp", { token: admin });
    await rest(served, "POST", "/v1/admin/users", {
      token: admin,
      body: { username: "temp", password: "temp-password-2", tenant_id: "default", role: "reader" },
    });
    await page.getByRole("button", { name: "Newer" }).click();
    const dialog = page.getByRole("dialog", { name: "Log in again" });
    await dialog.waitFor();
    await dialog.getByLabel("Password").fill("temp-password-2");
    await dialog.getByRole("button", { name: "Log in" }).click();
    await dialog.waitFor({ state: "detached" });
    // The request that was refused went through with the new token.
    await page.getByText("Showing revisions 80–").waitFor();
    await page.close();
  });

  test("errors show their code and message and leave the page usable", async () => {
    const page = await openConsole("#/streams/no-such-stream");
    const alert = page.getByRole("alert").first();
    await alert.waitFor();
    assert.match(await alert.innerText(), /STREAM_NOT_FOUND/);
    assert.doesNotMatch(
      await page.locator("body").innerText(),
      /at \w+ \(|\[object Object\]|TypeError|undefined/,
    );
    await show(page, "#/streams/orders-1/info");
    await page.getByLabel("Max count, events").fill("-3");
    await page.getByRole("button", { name: "Save retention" }).click();
    await page.getByRole("alert").getByText("INVALID_ARGUMENT").waitFor();
    await page.getByRole("link", { name: "All events" }).click();
    await page.getByRole("heading", { name: "All events" }).waitFor();
    await page.close();
  });

  test("soft delete asks for the stream id typed out", async () => {
    await append("doomed-1", [{ event_type: "X", data: {} }]);
    const page = await openConsole("#/streams/doomed-1/info");
    await page.getByRole("button", { name: "Delete stream…" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this stream?" });
    const confirm = dialog.getByRole("button", { name: "Delete stream" });
    await dialog.getByLabel("Type doomed-1 to confirm").fill("doomed");
    assert.equal(await confirm.isDisabled(), true);
    await dialog.getByLabel("Type doomed-1 to confirm").fill("doomed-1");
    await confirm.click();
    await page.getByText("deleted", { exact: true }).waitFor();
    assert.equal((await rest(served, "GET", "/v1/streams/doomed-1", { token: admin })).status, 404);
    await page.close();
  });

  test("keyboard only: log in, filter, open a stream, page, get help, change section", async () => {
    const page = await browser.newPage();
    await page.goto(consoleUrl());
    await page.keyboard.press("Tab");
    await page.keyboard.type("admin");
    await page.keyboard.press("Tab");
    await page.keyboard.type(adminPassword);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Streams" }).waitFor();
    await page.keyboard.press("/");
    await page.keyboard.type("orders-");
    await page.keyboard.press("Enter");
    await waitForHash(page, /prefix=orders-/);
    await page.getByRole("link", { name: "list-00" }).waitFor({ state: "detached" });
    // Filter field → Filter → Per page → the first stream.
    for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByText("Showing revisions").waitFor();
    await waitForHash(page, /from=\d+&dir=backward/);
    await page.getByRole("button", { name: "Older" }).and(page.locator(":enabled")).waitFor();
    const newest = Number(/from=(\d+)/.exec(hashOf(page))?.[1]);
    await page.keyboard.press("[");
    await waitForHash(page, new RegExp(`from=${newest - 50}&dir=backward`));
    const focused = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document
          .activeElement?.id,
    );
    assert.equal(focused, "page-title");
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await help.waitFor();
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
    await page.keyboard.press("g");
    await page.keyboard.press("u");
    await page.getByRole("heading", { name: "Users", exact: true }).waitFor();
    await page.close();
  });

  test("behind a reverse proxy under a path prefix, the console and its live tail work", async () => {
    const proxy = await startPathProxy(served.baseUrl, ["/ops/ess"]);
    try {
      const page = await browser.newPage();
      await page.goto(`${proxy.url}/ops/ess/console`);
      assert.equal(new URL(page.url()).pathname, "/ops/ess/console/");
      await logIn(page);
      await page.getByRole("link", { name: "orders-1" }).waitFor();
      await show(page, "#/streams/orders-1/live");
      await page.getByText("Live", { exact: true }).waitFor();
      await page.close();
      assert.ok(proxy.seen.includes("/ops/ess/v1/subscribe"));
    } finally {
      await proxy.close();
    }
  });

  test("with SERVICE_CONSOLE_BASE_PATH, the console calls the API where the proxy puts it", async () => {
    const other = await startServe({ SERVICE_CONSOLE_BASE_PATH: "/api" });
    const proxy = await startPathProxy(other.baseUrl, ["/ui", "/api"]);
    try {
      const page = await browser.newPage();
      await page.goto(`${proxy.url}/ui/console/`);
      await logIn(page);
      await page.getByRole("heading", { name: "Streams" }).waitFor();
      await show(page, "#/all/live");
      await page.getByText("Live", { exact: true }).waitFor();
      await page.close();
      const ui = proxy.seen.filter((path) => path.startsWith("/ui/"));
      const api = proxy.seen.filter((path) => path.startsWith("/api/"));
      assert.ok(
        ui.every((path) => path.startsWith("/ui/console/")),
        ui.join(" "),
      );
      assert.ok(api.includes("/api/v1/auth/login") && api.includes("/api/v1/subscribe"), api.join(" "));
    } finally {
      await proxy.close();
      await other.stop();
    }
  });

  test("no WCAG A/AA violation on the main pages, light or dark; screenshots of each", async () => {
    const pages: [string, string, (page: Page) => Promise<void>][] = [
      ["streams", "#/streams", (p) => p.getByRole("link", { name: "orders-1" }).waitFor()],
      [
        "stream",
        "#/streams/orders-1?from=129&dir=backward",
        (p) => p.getByText("Showing revisions").waitFor(),
      ],
      ["event", "#/streams/orders-1/events/5", (p) => p.getByText("PriceSet").first().waitFor()],
      [
        "stream-info",
        "#/streams/orders-1/info",
        (p) => p.getByRole("heading", { name: "Retention" }).waitFor(),
      ],
      [
        "live",
        "#/streams/orders-1/live",
        (p) => p.getByRole("button", { name: "Open event revision 129" }).waitFor(),
      ],
      ["all-events", "#/all", (p) => p.getByRole("table", { name: /Events from position/ }).waitFor()],
      [
        "operations",
        "#/operations",
        (p) =>
          p.getByRole("heading", { name: "Segments" }).or(p.getByText("Last position")).first().waitFor(),
      ],
      ["tenants", "#/tenants", (p) => p.getByRole("link", { name: "acme" }).waitFor()],
      ["tenant", "#/tenants/default", (p) => p.getByRole("table", { name: "Largest streams" }).waitFor()],
      ["users", "#/users", (p) => p.getByRole("table", { name: "Users" }).waitFor()],
    ];
    const found: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      const loginPage = await browser.newPage({ colorScheme: scheme });
      await loginPage.goto(consoleUrl());
      await loginPage.getByLabel("Username").waitFor();
      for (const v of await axeViolations(loginPage))
        found.push(`login/${scheme}: ${v.id} ${JSON.stringify(v.nodes)}`);
      await screenshot(loginPage, `login-${scheme}`);
      await logIn(loginPage);
      for (const [name, hash, ready] of pages) {
        await show(loginPage, hash);
        await ready(loginPage);
        for (const v of await axeViolations(loginPage))
          found.push(`${name}/${scheme}: ${v.id} ${v.help} ${JSON.stringify(v.nodes)}`);
        await screenshot(loginPage, `${name}-${scheme}`);
      }
      await loginPage.keyboard.press("?");
      await loginPage.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
      for (const v of await axeViolations(loginPage))
        found.push(`help/${scheme}: ${v.id} ${JSON.stringify(v.nodes)}`);
      await screenshot(loginPage, `help-${scheme}`);
      await loginPage.close();
    }
    assert.deepEqual(found, []);
  });

  test("no page broke the Content-Security-Policy or threw", () => {
    assert.deepEqual(browser.problems, []);
  });
});
