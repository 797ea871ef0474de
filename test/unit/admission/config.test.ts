import { describe, expect, it } from "vitest";
import { AdmissionConfigStore, compileRegexList, parseAdmissionConfig, pinoLevelOf } from "../../../src/admission/config.js";

describe("admission configuration", () => {
  it("defaults follow the design (bypassAuth off, controllers trusted, both system users)", () => {
    const r = parseAdmissionConfig({});
    if (!r.ok) throw new Error();
    expect(r.config.bypassAuth).toBe(false);
    expect(r.config.trustControllers).toBe(true);
    expect(r.config.systemUsers.patterns.map((p) => p.source)).toEqual([
      "^system:serviceaccount:kube-system:",
      "^system:kube-controller-manager$",
    ]);
    expect(r.config.bypassNamespaces.source).toBe("^kube-system$");
    expect(r.config.defaultQueue).toBe("root.default");
    expect(r.config.namespace).toBe("default");
  });

  it("precedence: defaults < environment < yunikorn-defaults < yunikorn-configs", () => {
    const env = {
      ADMISSION_CONTROLLER_BYPASS_AUTH: "true",
      ADMISSION_CONTROLLER_EXTERNAL_USERS: "^env$",
      ADMISSION_CONTROLLER_BYPASS_CONTROLLERS: "false",
    };
    const r = parseAdmissionConfig(env, [
      { name: "yunikorn-defaults", data: { "admissionController.accessControl.externalUsers": "^defaults$" } },
      { name: "yunikorn-configs", data: { "admissionController.accessControl.bypassAuth": "F" } },
    ]);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.config.bypassAuth).toBe(false);
    expect(r.config.externalUsers.source).toBe("^defaults$");
    expect(r.config.trustControllers).toBe(false);
  });

  it("every bad value is reported with key, value and source", () => {
    const r = parseAdmissionConfig({ ADMISSION_CONTROLLER_SYSTEM_USERS: "(" }, [
      {
        name: "ConfigMap corral/yunikorn-configs",
        data: {
          "admissionController.accessControl.bypassAuth": "maybe",
          "admissionController.filtering.defaultQueue": "default",
          "admissionController.filtering.bypassNamespace": "typo",
          "admissionController.webHook.mutateFailurePolicy": "fail",
        },
      },
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byKey = Object.fromEntries(r.errors.map((e) => [e.key, e]));
    expect(byKey["admissionController.accessControl.bypassAuth"]).toMatchObject({
      value: "maybe",
      source: "ConfigMap corral/yunikorn-configs",
      message: expect.stringMatching(/boolean/),
    });
    expect(byKey["admissionController.filtering.defaultQueue"]!.message).toMatch(/root\./);
    expect(byKey["admissionController.filtering.bypassNamespace"]!.message).toBe("unknown admission controller key");
    expect(byKey["admissionController.accessControl.systemUsers"]).toMatchObject({
      value: "(",
      source: "env ADMISSION_CONTROLLER_SYSTEM_USERS",
    });
    expect(byKey["admissionController.webHook.mutateFailurePolicy"]!.message).toBe("must be Fail or Ignore");
  });

  // apache/yunikorn-core pkg/log/logger_test.go TestParseLevel: zap's names and numbers -1 … 5, clamped
  it("log.level takes YuniKorn's levels too (dpanic, panic, -1 … 5), as the logger's", () => {
    const level = (v: string) => {
      const r = parseAdmissionConfig({}, [{ name: "t", data: { "log.level": v } }]);
      return r.ok ? r.config.logLevel : undefined;
    };
    expect(["-1", "0", "1", "2", "3", "4", "5"].map(level)).toEqual(["debug", "info", "warn", "error", "fatal", "fatal", "fatal"]);
    expect([level("DEBUG"), level("dpanic"), level("PANIC"), level("trace"), level("silent")]).toEqual([
      "debug",
      "fatal",
      "fatal",
      "trace",
      "silent",
    ]);
    // out of zap's range: clamped; beyond an int8 or not a level: refused naming the choices
    expect([pinoLevelOf("-5"), pinoLevelOf("100"), pinoLevelOf("200"), pinoLevelOf("verbose")]).toEqual([
      "debug",
      "fatal",
      undefined,
      undefined,
    ]);
    const bad = parseAdmissionConfig({}, [{ name: "t", data: { "log.level": "verbose" } }]);
    expect(bad.ok ? "" : bad.errors[0]!.message).toMatch(/^must be one of trace, debug, info, warn, error, fatal, silent, dpanic, panic/);
  });

  it("an empty value means empty (not the default), and regex lists trim and skip empty entries", () => {
    const r = parseAdmissionConfig({}, [
      { name: "t", data: { "admissionController.filtering.bypassNamespaces": "", "admissionController.filtering.defaultQueue": "" } },
    ]);
    if (!r.ok) throw new Error();
    expect(r.config.bypassNamespaces.patterns).toEqual([]);
    expect(r.config.defaultQueue).toBe("");
    expect(compileRegexList(" ^a$ ,, (?i)^B ").patterns.map((p) => [p.source, p.flags])).toEqual([
      ["^a$", ""],
      ["^B", "i"],
    ]);
    // Go (RE2) syntax: named groups as Go writes them; lookaround (which Go refuses) refused naming the entry
    expect(compileRegexList("^(?P<team>[a-z]+)-ns$").patterns[0]!.test("ml-ns")).toBe(true);
    expect(() => compileRegexList("^kube-(?!system)")).toThrow(/^invalid regular expression "\^kube-\(\?!system\)": lookaround/);
    // Go syntax JavaScript would read otherwise is read as Go reads it, or refused, never silently misread (before:
    // `^airflow\z` matched "airflowz" and not "airflow")
    const re = (src: string) => compileRegexList(src).patterns[0]!;
    expect([re("^airflow\\z").test("airflow"), re("^airflow\\z").test("airflowz")]).toEqual([true, false]);
    expect([re("\\Aairflow$").test("airflow"), re("\\Aairflow$").test("Aairflow")]).toEqual([true, false]);
    expect([re("^[[:alpha:]]+$").test("abc"), re("^[[:alpha:]]+$").test("a]")]).toEqual([true, false]);
    expect([re("^\\Qa.b\\E$").test("a.b"), re("^\\Qa.b\\E$").test("axb")]).toEqual([true, false]);
    expect([re("^[]a]$").test("]"), re("^[^]a]$").test("]"), re("^[^]a]$").test("b")]).toEqual([true, false, true]);
    expect(() => compileRegexList("^[[:^digit:]]$")).toThrow(/negated POSIX classes such as \[:\^digit:\] are not supported/);
    expect(() => compileRegexList("^\\pL+$")).toThrow(/\\p \(Unicode classes\) is not supported/);
    expect(() => compileRegexList("(?m)^a\\z")).toThrow(/\\z is not supported with the m flag/);
    expect(() => compileRegexList("^a\\y$")).toThrow(/invalid escape sequence \\y/);
    // escapes JavaScript and Go read alike still work, in and out of classes
    expect(re("^a\\.b[\\]:]\\d$").test("a.b:1")).toBe(true);
    expect(re("^[[:]$").test(":")).toBe(true);
  });

  it("the store keeps the last good config on a bad update and stops after hot refresh is turned off", () => {
    const store = new AdmissionConfigStore({});
    expect(store.update([{ name: "t", data: { "admissionController.filtering.defaultQueue": "root.x" } }]).status).toBe("applied");
    expect(store.update([{ name: "t", data: { "admissionController.filtering.defaultQueue": "x" } }]).status).toBe("rejected");
    expect(store.current.defaultQueue).toBe("root.x");
    expect(store.update([{ name: "t", data: { "admissionController.filtering.defaultQueue": "root.x" } }]).status).toBe("unchanged");
    expect(store.update([{ name: "t", data: { "service.enableConfigHotRefresh": "false" } }]).status).toBe("applied");
    expect(store.update([{ name: "t", data: { "admissionController.filtering.defaultQueue": "root.y" } }]).status).toBe("ignored");
    expect(store.current.defaultQueue).toBe("root.default");
  });
});
