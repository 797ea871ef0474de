import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { runMutate } from "../../../src/cli/mutate.js";
import { PROJECT_ROOT } from "../../../src/testbed/testbed.js";

async function mutate(opts: Partial<Parameters<typeof runMutate>[0]>) {
  let out = "",
    err = "";
  const code = await runMutate(
    { file: join(PROJECT_ROOT, "examples/workloads.yaml"), user: "alice", group: ["users"], operation: "CREATE", ...opts },
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

describe("corral mutate", () => {
  it("prints each object as stored, the denial, and exits 1 when anything is denied", async () => {
    const { code, out, err } = await mutate({});
    expect(code).toBe(1);
    const docs = parseAllDocuments(out).map((d) => d.toJS());
    expect(docs[0].spec.schedulerName).toBe("yunikorn");
    expect(JSON.parse(docs[0].metadata.annotations["yunikorn.apache.org/user.info"])).toEqual({
      user: "alice",
      groups: ["users", "system:authenticated"],
    });
    expect(JSON.parse(docs[1].spec.template.metadata.annotations["yunikorn.apache.org/user.info"]).user).toBe("alice");
    expect(out).toContain(
      "# DENIED Pod team-a/forged: user alice with groups [users,system:authenticated] is not allowed to set user annotation",
    );
    expect(err).toContain("1 of 3 object(s) denied");
  });

  it("--patch prints the JSON Patch; a config file changes the outcome", async () => {
    const dir = await mkdtemp(join(tmpdir(), "corral-mutate-"));
    const cfg = join(dir, "config.yaml");
    await writeFile(
      cfg,
      "admissionController.accessControl.externalUsers: ^alice$\nadmissionController.filtering.defaultQueue: root.batch\n",
    );
    const { code, out } = await mutate({ config: cfg, patch: true });
    expect(code).toBe(0);
    expect(out).toContain('"path": "/spec/schedulerName"');
    expect(out).toContain('"queue": "root.batch"');
  });

  it("a malformed manifest is a clear error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "corral-mutate-"));
    const f = join(dir, "bad.yaml");
    await writeFile(f, "kind: Pod\nmetadata: [unclosed\n");
    await expect(mutate({ file: f })).rejects.toThrow(/bad\.yaml: document 1/);
  });
});
