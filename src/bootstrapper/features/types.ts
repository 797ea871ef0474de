/** The parts of a Pod the manipulations touch, as copies the features may change in place. */
export interface Container {
  name: string;
  image?: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
  [k: string]: unknown;
}

export interface PodParts {
  containers: Container[];
  initContainers: Container[];
  ephemeralContainers: Container[];
  volumes: { name: string; [k: string]: unknown }[];
  imagePullSecrets: { name: string }[];
}

/** Every container kind, for manipulations that apply to all. */
export const allContainers = (p: PodParts): Container[] => [...p.initContainers, ...p.containers, ...p.ephemeralContainers];
