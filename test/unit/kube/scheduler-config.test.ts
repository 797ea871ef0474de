/**
 * kube-scheduler configuration of plugin mode: the API version per release, and deploy/scheduler's two files are the
 * builder's output (so `corral scheduler-config` and the manifests cannot drift apart).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { kubeSchedulerConfigApiVersion, pluginModeSchedulerConfig } from "../../../src/kube/scheduler-config.js";

const deploy = (file: string) => parse(readFileSync(new URL(`../../../deploy/scheduler/${file}`, import.meta.url), "utf8"));

describe("kubeSchedulerConfigApiVersion", () => {
  it.each([
    [20, "v1beta1"],
    [21, "v1beta1"],
    [22, "v1beta2"],
    [23, "v1beta3"],
    [24, "v1beta3"],
    [25, "v1"],
    [30, "v1"],
    [35, "v1"],
  ])("1.%i reads %s", (minor, v) => {
    expect(kubeSchedulerConfigApiVersion({ major: 1, minor })).toEqual({ ok: true, apiVersion: `kubescheduler.config.k8s.io/${v}` });
  });

  it("refuses versions older than the test bed's", () => {
    expect(kubeSchedulerConfigApiVersion({ major: 1, minor: 19 })).toEqual({
      ok: false,
      error: "Kubernetes 1.19 is not supported: corral runs on 1.20 and later 1.x releases",
    });
    expect(kubeSchedulerConfigApiVersion({ major: 2, minor: 0 }).ok).toBe(false);
  });
});

describe("deploy/scheduler plugin-mode files", () => {
  it("plugin-mode.yaml is the configuration for 1.25 and later", () => {
    expect(deploy("plugin-mode.yaml")).toEqual(pluginModeSchedulerConfig({ apiVersion: "kubescheduler.config.k8s.io/v1" }));
  });

  it("plugin-mode-v1beta1.yaml is the configuration for 1.20-1.21", () => {
    expect(deploy("plugin-mode-v1beta1.yaml")).toEqual(pluginModeSchedulerConfig({ apiVersion: "kubescheduler.config.k8s.io/v1beta1" }));
  });
});

describe("corral scheduler-config", () => {
  async function cli(...args: string[]): Promise<string> {
    const { buildCli } = await import("../../../src/cli/main.js");
    const { vi } = await import("vitest");
    let out = "";
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
    try {
      await buildCli()
        .exitOverride()
        .parseAsync(["node", "corral", "scheduler-config", ...args]);
    } finally {
      spy.mockRestore();
    }
    return out;
  }

  it.each([
    ["v1.20.2", "plugin-mode-v1beta1.yaml"],
    ["1.35", "plugin-mode.yaml"],
  ])("--kube-version %s prints deploy/scheduler/%s", async (version, file) => {
    expect(parse(await cli("--kube-version", version))).toEqual(deploy(file));
  });

  it("1.24 gets v1beta3; --url-prefix and --lock-namespace are used", async () => {
    const c = parse(await cli("--kube-version", "1.24", "--url-prefix", "http://corral.x.svc:9080/scheduler", "--lock-namespace", "x"));
    expect(c.apiVersion).toBe("kubescheduler.config.k8s.io/v1beta3");
    expect(c.extenders[0].urlPrefix).toBe("http://corral.x.svc:9080/scheduler");
    expect(c.leaderElection.resourceNamespace).toBe("x");
  });

  it("an unreadable or unsupported version is refused, naming the flag", async () => {
    await expect(cli("--kube-version", "latest")).rejects.toThrow('--kube-version "latest": expected major.minor such as 1.30 or v1.30.4');
    await expect(cli("--kube-version", "1.18")).rejects.toThrow("--kube-version 1.18: Kubernetes 1.18 is not supported");
  });
});
