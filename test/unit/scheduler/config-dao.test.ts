/**
 * `GET /ws/v1/config` as upstream writes it (apache/yunikorn-core handlers.go getClusterConfig, dao ConfigDAOInfo,
 * configs.SetChecksum): Go field names and `omitempty` in JSON, the checksum, the extra configuration.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeQueuesYaml } from "../../../src/scheduler/core/config.js";
import { validateSchedulerConfig } from "../../../src/scheduler/core/validate.js";
import { configChecksum, configJson, configYaml } from "../../../src/scheduler/rest/config-dao.js";
import { extraConfigOf } from "../../../src/scheduler/shim/config.js";

const sha = (t: string) => createHash("sha256").update(t).digest("hex").toUpperCase();
const TEXT = `partitions:
  - name: default
    limits:
      - users: [alice]
        maxapplications: 2
    placementrules:
      - name: user
        create: true
        filter: {type: deny, groups: [guests]}
        parent: {name: fixed, value: root.users}
    preemption: {enabled: false}
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: users
            parent: true
            childtemplate: {maxapplications: 3}
          - name: batch
            resources: {max: {memory: 1Gi}}
            properties: {application.sort.policy: fair}
`;

describe("/ws/v1/config", () => {
  it("the checksum is upstream's: SHA-256 of the text, upper-case hex, a checksum entry in it left out", () => {
    expect(configChecksum(TEXT)).toBe(sha(TEXT));
    const withEntry = `${TEXT}checksum: ${"A".repeat(64)}\n`;
    expect(configChecksum(withEntry)).toBe(sha(`${TEXT}\n`));
  });

  it("JSON: Go field names; structs always written, empty strings, lists, maps, false and 0 left out", () => {
    const cfg = validateSchedulerConfig(decodeQueuesYaml(TEXT));
    const j = configJson(cfg, { text: TEXT, extra: { "log.level": "info" } }) as Record<string, any>;
    expect(Object.keys(j)).toEqual(["Partitions", "Checksum", "Extra", "DeadlockDetectionEnabled", "DeadlockTimeoutSeconds"]);
    expect(j.Extra).toEqual({ "log.level": "info" });
    const p = j.Partitions[0];
    expect(p).toMatchObject({
      Name: "default",
      PlacementRules: [
        {
          Name: "user",
          Create: true,
          Filter: { Type: "deny", Groups: ["guests"] },
          Parent: { Name: "fixed", Filter: { Type: "" }, Value: "root.users" },
        },
      ],
      Limits: [{ Limit: "", Users: ["alice"], MaxApplications: 2 }],
      Preemption: { Enabled: false },
      NodeSortPolicy: { Type: "" },
      UserGroupResolver: {},
    });
    const [root] = p.Queues;
    expect(root).toMatchObject({ Name: "root", Parent: true, SubmitACL: "*", Resources: {}, ChildTemplate: { Resources: {} } });
    expect(root.Queues[0]).toEqual({ Name: "users", Parent: true, Resources: {}, ChildTemplate: { MaxApplications: 3, Resources: {} } });
    expect(root.Queues[1]).toEqual({
      Name: "batch",
      Resources: { Max: { memory: "1Gi" } },
      Properties: { "application.sort.policy": "fair" },
      ChildTemplate: { Resources: {} },
    });
  });

  it("YAML: the configuration's own keys, then checksum, extra (when any) and the deadlock settings", () => {
    const cfg = validateSchedulerConfig(decodeQueuesYaml(TEXT));
    expect(Object.keys(configYaml(cfg, { text: TEXT, extra: {} }))).toEqual([
      "partitions",
      "checksum",
      "deadlockdetectionenabled",
      "deadlocktimeoutseconds",
    ]);
  });

  it("the extra configuration is every ConfigMap key not ending in .yaml (k8shim GetExtraConfigFromConfigMap)", () => {
    expect(extraConfigOf({ "queues.yaml": "q", "batch.yaml": "b", "log.level": "debug", "service.schedulingInterval": "1s" })).toEqual({
      "log.level": "debug",
      "service.schedulingInterval": "1s",
    });
  });
});
