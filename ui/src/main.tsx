/**
 * The corral dashboard: read-only pages over the scheduler's REST API (same origin), kept current by its event stream.
 */
import { type JSX, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { live, useApi, useLive } from "./api.js";
import { AppsPage } from "./pages/apps.js";
import { NodesPage } from "./pages/nodes.js";
import { QueuesPage } from "./pages/queues.js";
import { UsersPage } from "./pages/users.js";
import { WaitingPage } from "./pages/waiting.js";
import { type Page, href, setParam, useRoute } from "./route.js";
import "./style.css";

const NAV: [Page, string][] = [
  ["queues", "Queues"],
  ["waiting", "Why waiting"],
  ["apps", "Applications"],
  ["users", "Users and groups"],
  ["nodes", "Nodes"],
];

function Banner(): JSX.Element | null {
  const l = useLive();
  const c = l.conn;
  if (c.state === "unreachable") {
    return (
      <div class="banner banner-bad" role="alert">
        <strong>The scheduler is unreachable.</strong> {c.detail}. The page shows the last data it read and retries on its own.
      </div>
    );
  }
  if (c.state === "notLeader") {
    return (
      <div class="banner banner-bad" role="alert">
        <strong>Not the leader.</strong> {c.detail}. The data below may be stale or empty until a leader answers.
      </div>
    );
  }
  return null;
}

function LiveState(): JSX.Element {
  const l = useLive();
  const words = {
    connecting: "connecting…",
    live: "live",
    polling: "refreshing every few seconds",
    unreachable: "offline",
    notLeader: "not the leader",
  }[l.conn.state];
  return (
    <span class={`live live-${l.conn.state}`} role="status" aria-live="polite">
      <span class="dot" aria-hidden="true" /> {words}
    </span>
  );
}

type Theme = "" | "light" | "dark";

function ThemeButton(): JSX.Element {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("corral-theme") as Theme | null) ?? "");
  useEffect(() => {
    if (theme) document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
    localStorage.setItem("corral-theme", theme);
  }, [theme]);
  const next: Theme = theme === "" ? "dark" : theme === "dark" ? "light" : "";
  return (
    <button
      type="button"
      class="theme"
      onClick={() => setTheme(next)}
      aria-label={`Colour scheme: ${theme || "system"}. Switch to ${next || "system"}`}
    >
      {theme === "dark" ? "Dark" : theme === "light" ? "Light" : "System"} theme
    </button>
  );
}

function App(): JSX.Element {
  const route = useRoute();
  const parts = useApi<{ name: string }[]>("/ws/v1/partitions");
  const partition = route.params.get("partition") || "default";
  const p = (k: string) => route.params.get(k) ?? "";
  useEffect(() => {
    const title = NAV.find(([k]) => k === route.page)?.[1] ?? "";
    document.title = `${title} · corral`;
  }, [route.page]);
  useEffect(() => live.start(), []);
  let page: JSX.Element;
  switch (route.page) {
    case "waiting":
      page = <WaitingPage partition={partition} query={p("q")} kind={p("kind")} />;
      break;
    case "apps":
      page = <AppsPage partition={partition} queue={p("queue")} query={p("q")} state={p("state")} app={p("app")} />;
      break;
    case "users":
      page = <UsersPage partition={partition} query={p("q")} />;
      break;
    case "nodes":
      page = <NodesPage partition={partition} type={p("type")} query={p("q")} />;
      break;
    default:
      page = <QueuesPage partition={partition} />;
  }
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
        Skip to content
      </a>
      <header>
        <span class="brand">corral</span>
        <nav aria-label="Pages">
          <ul>
            {NAV.map(([k, label]) => (
              <li key={k}>
                <a href={href(k, partition !== "default" ? { partition } : {})} aria-current={route.page === k ? "page" : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="tools">
          {(parts.data?.length ?? 0) > 1 ? (
            <label>
              Partition{" "}
              <select value={partition} onChange={(e) => setParam("partition", (e.target as HTMLSelectElement).value)}>
                {parts.data!.map((x) => (
                  <option key={x.name} value={x.name}>
                    {x.name}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          <LiveState />
          <ThemeButton />
        </div>
      </header>
      <Banner />
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
