/**
 * kube-scheduler's configuration for corral's plugin mode (docs/plugin-mode.md): a second kube-scheduler serving
 * `schedulerName: yunikorn` with corral as its filter and bind extender. Pure builders; `corral scheduler-config`
 * prints the result, deploy/scheduler/plugin-mode*.yaml are its output for a current cluster and for 1.20–1.21.
 *
 * KubeSchedulerConfiguration API by release (KEP-785): v1beta1 1.19–1.22, v1beta2 1.22–1.27, v1beta3 1.23–1.28,
 * v1 from 1.25. The fields corral sets (clientConnection, leaderElection, percentageOfNodesToScore, profiles with a
 * disabled postFilter plugin, extenders) are the same in all four.
 */

export type KubeSchedulerConfigApiVersion =
  | "kubescheduler.config.k8s.io/v1"
  | "kubescheduler.config.k8s.io/v1beta3"
  | "kubescheduler.config.k8s.io/v1beta2"
  | "kubescheduler.config.k8s.io/v1beta1";

/** Oldest Kubernetes minor version corral supports (the test bed). */
export const OLDEST_SUPPORTED_MINOR = 20;

/**
 * The newest KubeSchedulerConfiguration API a kube-scheduler of `version` reads: v1 from 1.25, v1beta3 on
 * 1.23–1.24, v1beta2 on 1.22, v1beta1 on 1.20–1.21.
 * @returns an error for versions older than 1.20 (or not 1.x)
 */
export function kubeSchedulerConfigApiVersion(version: {
  major: number;
  minor: number;
}): { ok: true; apiVersion: KubeSchedulerConfigApiVersion } | { ok: false; error: string } {
  const { major, minor } = version;
  if (major !== 1 || minor < OLDEST_SUPPORTED_MINOR)
    return {
      ok: false,
      error: `Kubernetes ${major}.${minor} is not supported: corral runs on 1.${OLDEST_SUPPORTED_MINOR} and later 1.x releases`,
    };
  const v = minor >= 25 ? "v1" : minor >= 23 ? "v1beta3" : minor === 22 ? "v1beta2" : "v1beta1";
  return { ok: true, apiVersion: `kubescheduler.config.k8s.io/${v}` };
}

/** Options of the plugin-mode KubeSchedulerConfiguration: its API version and corral's extender endpoint. */
export interface PluginModeConfigOptions {
  apiVersion: KubeSchedulerConfigApiVersion;
  /** corral's extender endpoint. Default `http://yunikorn-service.corral.svc:9080/scheduler` (deploy/scheduler). */
  urlPrefix?: string;
  /** Namespace of kube-scheduler's leader-election lock. Default `corral`. */
  leaderElectionNamespace?: string;
}

/**
 * The KubeSchedulerConfiguration of plugin mode as a plain object (serialise with `yaml`). Why each field is set:
 * deploy/scheduler/plugin-mode.yaml and docs/plugin-mode.md § Pitfalls.
 */
export function pluginModeSchedulerConfig(o: PluginModeConfigOptions): Record<string, unknown> {
  return {
    apiVersion: o.apiVersion,
    kind: "KubeSchedulerConfiguration",
    clientConnection: { qps: 500, burst: 1000 },
    leaderElection: { leaderElect: true, resourceName: "corral-kube-scheduler", resourceNamespace: o.leaderElectionNamespace ?? "corral" },
    percentageOfNodesToScore: 100,
    profiles: [{ schedulerName: "yunikorn", plugins: { postFilter: { disabled: [{ name: "DefaultPreemption" }] } } }],
    extenders: [
      {
        urlPrefix: o.urlPrefix ?? "http://yunikorn-service.corral.svc:9080/scheduler",
        filterVerb: "filter",
        bindVerb: "bind",
        nodeCacheCapable: true,
        enableHTTPS: false,
        httpTimeout: "5s",
        ignorable: false,
      },
    ],
  };
}
