/**
 * A real browser for the dashboard tests: Debian's chromium (installed by scripts/install-chromium.sh when missing)
 * driven by playwright-core, headless, with a fresh profile per launch and nothing fetched from the network but the
 * page under test.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, type Page, chromium } from "playwright-core";
import { PROJECT_ROOT } from "../../src/testbed/testbed.js";

export const CHROMIUM = "/usr/bin/chromium";
/** Where the screenshots go (gitignored). */
export const REPORTS = join(PROJECT_ROOT, ".corral", "reports", "dashboard");

/** Installs chromium when it is missing (apt-get; see scripts/install-chromium.sh). */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  execFileSync("bash", [join(PROJECT_ROOT, "scripts", "install-chromium.sh")], { stdio: "inherit" });
}

export interface OpenBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * Launches chromium on a fresh profile directory (playwright passes it as --user-data-dir) and opens one page
 * (1400×900, light scheme unless told).
 */
export async function openBrowser(o: { colorScheme?: "light" | "dark" } = {}): Promise<OpenBrowser> {
  ensureChromium();
  const profile = await mkdtemp(join(tmpdir(), "corral-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1400, height: 900 },
    colorScheme: o.colorScheme ?? "light",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Writes a full-page screenshot to .corral/reports/dashboard/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(REPORTS, { recursive: true });
  const file = join(REPORTS, `${name}.png`);
  // no hover or focus ring in the picture
  await page.mouse.move(0, 0);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Milliseconds from navigation start until `selector` is in the page (the browser's own clock, performance.now()). */
export async function timeUntil(page: Page, selector: string, timeout = 30_000): Promise<number> {
  const h = await page.waitForFunction((s) => (document.querySelector(s) ? performance.now() : false), selector, {
    timeout,
    polling: "raf",
  });
  return (await h.jsonValue()) as number;
}

/** Goes to a dashboard page by its link in the navigation (no reload) and waits for its heading. */
export async function navigate(page: Page, link: string, heading: string): Promise<void> {
  await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: link }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}
