import { describe, expect, it } from "vitest";
import { DEFAULT_GANG_CONFIG, parseGangConfig } from "../../../../src/scheduler/shim/gang/config.js";

describe("parseGangConfig", () => {
  it("defaults: gang scheduling on, upstream's pause image, no ids", () => {
    expect(parseGangConfig({})).toEqual({
      ok: true,
      config: {
        disableGangScheduling: false,
        placeholder: { image: "registry.k8s.io/pause:3.7" },
        schedulerUser: "system:serviceaccount:corral:corral-scheduler",
      },
    });
    expect(DEFAULT_GANG_CONFIG).toEqual({
      disableGangScheduling: false,
      placeholder: { image: "registry.k8s.io/pause:3.7" },
      schedulerUser: "system:serviceaccount:corral:corral-scheduler",
    });
  });
  it("upstream's keys (pkg/conf/schedulerconf.go): image from a mirror, ids, gang scheduling off", () => {
    expect(
      parseGangConfig({
        "service.disableGangScheduling": "true",
        "service.placeholderImage": "mirror.internal:5000/pause:3.9",
        "service.placeholderRunAsUser": "1000",
        "service.placeholderRunAsGroup": "3000",
        "service.placeholderFsGroup": "2000",
        "queues.yaml": "partitions: []",
      }),
    ).toEqual({
      ok: true,
      config: {
        disableGangScheduling: true,
        placeholder: { image: "mirror.internal:5000/pause:3.9", runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000 },
        schedulerUser: "system:serviceaccount:corral:corral-scheduler",
      },
    });
  });
  it("0 and empty ids are unset (upstream only applies non-zero ids); an empty image is the default", () => {
    expect(
      parseGangConfig({ "service.placeholderRunAsUser": "0", "service.placeholderFsGroup": "", "service.placeholderImage": " " }),
    ).toEqual({
      ok: true,
      config: {
        disableGangScheduling: false,
        placeholder: { image: "registry.k8s.io/pause:3.7" },
        schedulerUser: "system:serviceaccount:corral:corral-scheduler",
      },
    });
    expect(parseGangConfig({ "service.disableGangScheduling": "F" })).toMatchObject({ ok: true, config: { disableGangScheduling: false } });
  });
  it("bad values: every key named with its value", () => {
    expect(
      parseGangConfig({
        "service.disableGangScheduling": "yes",
        "service.placeholderRunAsUser": "root",
        "service.placeholderRunAsGroup": "-1",
        "service.placeholderFsGroup": "1.5",
        "service.placeholderImage": "pause 3.7",
      }),
    ).toEqual({
      ok: false,
      errors: [
        'service.disableGangScheduling: must be true or false, got "yes"',
        'service.placeholderImage: must be an image reference without spaces, got "pause 3.7"',
        'service.placeholderRunAsUser: must be an integer ≥ 0, got "root"',
        'service.placeholderRunAsGroup: must be an integer ≥ 0, got "-1"',
        'service.placeholderFsGroup: must be an integer ≥ 0, got "1.5"',
      ],
    });
  });
});

describe("service.schedulerUser", () => {
  it("defaults to the scheduler's ServiceAccount in its namespace; a set value wins", () => {
    expect(parseGangConfig({}, { namespace: "batch" })).toMatchObject({
      ok: true,
      config: { schedulerUser: "system:serviceaccount:batch:corral-scheduler" },
    });
    expect(parseGangConfig({ "service.schedulerUser": " system:serviceaccount:x:y " }, { namespace: "batch" })).toMatchObject({
      ok: true,
      config: { schedulerUser: "system:serviceaccount:x:y" },
    });
  });
});
