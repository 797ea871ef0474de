/**
 * Runtime bootstrapper configuration (design 003; kyma-rtbootstrapper reference §2): JSON in the ConfigMap
 * `rt-bootstrapper-config`, key `rt-bootstrapper-config.json`, compatible with upstream's current format (overrides,
 * clusterTrustBundle, namespaceFeatures, availableFeatures) plus corral's keys. Validated at load; an invalid config
 * is refused whole with the field named, and the caller keeps the last good one.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { formatZodError } from "../util/zod.js";

/** Prefix of the feature annotations and labels (`rt-cfg.kyma-project.io/<feature>`). */
export const FEATURE_PREFIX = "rt-cfg.kyma-project.io/";
/** The runtime manipulations, by upstream's names. */
export const FEATURES = [
  "alter-img-registry",
  "add-img-pull-secret",
  "add-cluster-trust-bundle",
  "set-fips-mode",
  "set-landscape",
] as const;
/** One runtime manipulation. */
export type Feature = (typeof FEATURES)[number];
/** The annotation/label that opts in to every feature. */
export const ALL_ALIAS = `${FEATURE_PREFIX}all`;
/** The bootstrapper's ConfigMap and the key holding its JSON configuration. */
export const CONFIGMAP_NAME = "rt-bootstrapper-config";
export const CONFIGMAP_KEY = "rt-bootstrapper-config.json";
/** Set on every pod the webhook changed (upstream's marker). */
export const ANNOTATION_MODIFIED = "rt-bootstrapper.kyma-project.io/modified";
/** Which manipulations were applied, and the config revision: `alter-img-registry,set-fips-mode@<rev>`. */
export const ANNOTATION_APPLIED = "rt-bootstrapper.kyma-project.io/manipulations";

const featureKey = z
  .string()
  .refine(
    (k) => k === ALL_ALIAS || (k.startsWith(FEATURE_PREFIX) && (FEATURES as readonly string[]).includes(k.slice(FEATURE_PREFIX.length))),
    {
      error: (iss) =>
        `unknown feature ${JSON.stringify(iss.input)}; known: ${FEATURES.map((f) => FEATURE_PREFIX + f).join(", ")} or ${ALL_ALIAS}`,
    },
  );

const hostPattern = /^(localhost|[A-Za-z0-9.-]+\.[A-Za-z0-9.-]+|[A-Za-z0-9.-]+:\d+|[A-Za-z0-9.-]+\.[A-Za-z0-9-]+:\d+)$/;

/** The configuration's schema (zod); each field is documented where it is declared. */
export const bootstrapperConfigSchema = z
  .object({
    /** Source registry host[:port] → target host[:port][/path]. */
    overrides: z.record(
      z.string().regex(hostPattern, "override keys are registry hosts (host.domain, host:port or localhost)"),
      z.string().min(1),
    ),
    /** Treat Docker Hub short names (`nginx`, `team/app`) as `docker.io/...` so an override for `docker.io` applies. */
    matchDockerHub: z.boolean().default(false),
    imagePullSecretName: z.string().min(1).default("registry-credentials"),
    /** Trust bundle from a ClusterTrustBundle (projected volume; Kubernetes ≥ 1.27 with the API enabled). */
    clusterTrustBundle: z
      .object({
        name: z.string().min(1),
        certWritePath: z.string().min(1),
        volumeMountPath: z.string().min(1),
        volumeName: z.string().min(1),
        resyncInterval: z.string().optional(),
      })
      .optional(),
    /** Trust bundle from a ConfigMap key (works on every cluster); used when clusterTrustBundle is not set. */
    trustBundleConfigMap: z
      .object({
        name: z.string().min(1),
        key: z.string().min(1),
        volumeMountPath: z.string().min(1),
        volumeName: z.string().min(1),
        fileName: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    /** FIPS variables set on every container (existing values are kept). */
    fipsVariables: z.record(z.string(), z.string()).default({ KYMA_FIPS_MODE_ENABLED: "true", FIPS_MODE_ENABLED: "true" }),
    landscape: z
      .object({ variable: z.string().min(1).default("KYMA_LANDSCAPE"), value: z.string() })
      .strict()
      .optional(),
    /** Mandatory features per namespace (platform namespaces). */
    namespaceFeatures: z.record(z.string(), z.array(featureKey)).default({ "kyma-system": [ALL_ALIAS], "istio-system": [ALL_ALIAS] }),
    /** Features customers may opt into; default every known one. */
    availableFeatures: z.array(featureKey).default(FEATURES.map((f) => FEATURE_PREFIX + f)),
    /** The scan that repairs pods the webhook missed. */
    housekeeping: z
      .object({
        intervalSeconds: z.number().positive().default(60),
        dryRun: z.boolean().default(false),
        /** Evictions per minute, cluster-wide. */
        evictionsPerMinute: z.number().positive().default(30),
      })
      .strict()
      .default({ intervalSeconds: 60, dryRun: false, evictionsPerMinute: 30 }),
    /** Shared resources copied from one namespace into the others. */
    sync: z
      .object({
        sourceNamespace: z.string().min(1).default("kyma-system"),
        resources: z.array(z.object({ kind: z.enum(["Secret", "ConfigMap"]), name: z.string().min(1) }).strict()).default([]),
        /** Only namespaces with all these labels get copies (empty: every namespace). */
        namespaceLabels: z.record(z.string(), z.string()).default({}),
        deleteCopiesWithSource: z.boolean().default(true),
        resyncSeconds: z.number().positive().default(60),
      })
      .strict()
      .default({ sourceNamespace: "kyma-system", resources: [], namespaceLabels: {}, deleteCopiesWithSource: true, resyncSeconds: 60 }),
  })
  .strict();

/** A parsed configuration, with `revision`: the first 12 hex digits of the SHA-256 of its text. */
export type BootstrapperConfig = z.infer<typeof bootstrapperConfigSchema> & { revision: string };

/**
 * Parses and validates the JSON text.
 * @returns the config with `revision` (first 12 hex of SHA-256 of the text), or the error naming the field
 */
export function parseBootstrapperConfig(text: string): { ok: true; config: BootstrapperConfig } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `${CONFIGMAP_KEY} is not valid JSON: ${(err as Error).message}` };
  }
  const r = bootstrapperConfigSchema.safeParse(raw);
  if (!r.success) return { ok: false, error: `invalid ${CONFIGMAP_KEY}: ${formatZodError("", r.error)}` };
  const c = r.data;
  for (const [ns, feats] of Object.entries(c.namespaceFeatures)) {
    for (const f of feats) {
      if (f !== ALL_ALIAS && !c.availableFeatures.includes(f))
        return { ok: false, error: `invalid ${CONFIGMAP_KEY}: namespaceFeatures.${ns}: feature "${f}" is not in availableFeatures` };
    }
  }
  return { ok: true, config: Object.freeze({ ...c, revision: createHash("sha256").update(text).digest("hex").slice(0, 12) }) };
}
