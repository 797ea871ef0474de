/**
 * Kubernetes client set-up (@kubernetes/client-node 1.4: the 2.x line needs Node ≥ 22.19).
 */
import * as k8s from "@kubernetes/client-node";

/**
 * Loads a kubeconfig: an explicit path, else `$KUBECONFIG`, else the in-cluster service account, else
 * `~/.kube/config` (the client's `loadFromDefault` order).
 * @throws Error when no configuration can be found
 */
export function loadKubeConfig(path?: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  if (!kc.getCurrentCluster()) throw new Error(`no Kubernetes cluster configured${path ? ` in ${path}` : ""}`);
  return kc;
}

export { k8s };
