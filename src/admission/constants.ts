/**
 * Label, annotation and name constants of the admission controller, spelled exactly as
 * Apache YuniKorn spells them (apache/yunikorn-k8shim pkg/common/constants/constants.go,
 * pkg/admission/common/common.go). One place, so a key is never typed twice.
 */

/** Default `spec.schedulerName` written on pods (constants.SchedulerName). */
export const DEFAULT_SCHEDULER_NAME = "yunikorn";

/**
 * Namespace label that keeps a namespace out of the webhooks (value `"true"`). Namespaces are cluster-scoped, so only
 * someone allowed to create or update Namespaces (a cluster administrator) can set it; tenants with the `edit` role in
 * their namespaces cannot. Needed on Kubernetes 1.20, where namespaces have no `kubernetes.io/metadata.name` label.
 */
export const NAMESPACE_EXCLUDE_LABEL = "admission.corral.dev/exclude";
/** Label every Namespace carries from Kubernetes 1.21 (its name), set by the API server. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** Legacy application id label (design 000). */
export const LABEL_APPLICATION_ID = "applicationId";
/** Canonical application id label (YUNIKORN-2631). */
export const CANONICAL_LABEL_APPLICATION_ID = "yunikorn.apache.org/app-id";
/** Application id annotation (same string as the canonical label). */
export const ANNOTATION_APPLICATION_ID = "yunikorn.apache.org/app-id";
/** Plugin mode: `"true"` leaves a pod to default scheduling even with an application id (k8shim plugin era). */
export const ANNOTATION_IGNORE_APPLICATION = "yunikorn.apache.org/ignore-application";
/** Spark's application id label. */
export const SPARK_LABEL_APP_ID = "spark-app-selector";

/** Legacy queue label (design 000). */
export const LABEL_QUEUE_NAME = "queue";
/** Canonical queue label. */
export const CANONICAL_LABEL_QUEUE_NAME = "yunikorn.apache.org/queue";

/** Label set when the application id was generated (design 000; removed upstream in YUNIKORN-2484). */
export const LABEL_DISABLE_STATE_AWARE = "disableStateAware";

/** User and groups of the submitter, as JSON `{"user": string, "groups": string[]}` (design 002). */
export const ANNOTATION_USER_INFO = "yunikorn.apache.org/user.info";
/** Legacy user label (design 002 "Backwards compatibility"); the key is configurable. */
export const DEFAULT_USER_LABEL_KEY = "yunikorn.apache.org/username";

/** Pod / PriorityClass annotation: may this pod be preempted by pods of the same application? */
export const ANNOTATION_ALLOW_PREEMPTION = "yunikorn.apache.org/allow-preemption";

/** Namespace annotations that override the namespace regex lists (tri-state: absent, "true", anything else). */
export const ANNOTATION_ENABLE_YUNIKORN = "yunikorn.apache.org/namespace.enableYuniKorn";
export const ANNOTATION_GENERATE_APP_ID = "yunikorn.apache.org/namespace.generateAppId";

/** Generated application ids: `yunikorn-<namespace>-autogen`, or `<namespace[:26]>-uniqueautogen`. */
export const AUTOGEN_APP_PREFIX = "yunikorn";
export const AUTOGEN_APP_SUFFIX = "autogen";
export const UNIQUE_AUTOGEN_SUFFIX = "-uniqueautogen";

/** Queue label value used when a pod names none (design 000). */
export const DEFAULT_QUEUE = "root.default";

/** ConfigMaps holding the configuration, in the controller's namespace. */
export const CONFIGMAP_NAME = "yunikorn-configs";
export const DEFAULT_CONFIGMAP_NAME = "yunikorn-defaults";

/** Webhook paths and the default port (cmd/admissioncontroller/main.go). */
export const MUTATE_PATH = "/mutate";
export const VALIDATE_CONF_PATH = "/validate-conf";
/** corral's addition: the pods/status UPDATE check (user.info must not change through the status subresource). */
export const VALIDATE_PODS_PATH = "/validate-pods";
export const DEFAULT_ADMISSION_PORT = 9089;

/** Webhook configuration and entry names (webhook_manager.go). */
export const MUTATING_WEBHOOK_CONFIGURATION = "yunikorn-admission-controller-mutations";
export const VALIDATING_WEBHOOK_CONFIGURATION = "yunikorn-admission-controller-validations";
export const MUTATE_PODS_WEBHOOK = "admission-webhook.yunikorn.mutate-pods";
export const VALIDATE_CONF_WEBHOOK = "admission-webhook.yunikorn.validate-conf";
export const VALIDATE_POD_STATUS_WEBHOOK = "admission-webhook.yunikorn.validate-pod-status";

/** Maximum length of a label value (Kubernetes validation). */
export const LABEL_VALUE_MAX_LENGTH = 63;
