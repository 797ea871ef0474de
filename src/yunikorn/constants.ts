/**
 * YuniKorn's label, annotation and ConfigMap names, spelled exactly as Apache YuniKorn spells them
 * (apache/yunikorn-k8shim pkg/common/constants/constants.go, pkg/admission/common/common.go). Shared by the admission
 * controller, the bootstrapper and the scheduler: one place, so a key is never typed twice.
 */

/** Default `spec.schedulerName` written on pods (constants.SchedulerName). */
export const DEFAULT_SCHEDULER_NAME = "yunikorn";

/** Legacy application id label (design 000). */
export const LABEL_APPLICATION_ID = "applicationId";
/** Canonical application id label (YUNIKORN-2631). */
export const CANONICAL_LABEL_APPLICATION_ID = "yunikorn.apache.org/app-id";
/** Application id annotation (same string as the canonical label). */
export const ANNOTATION_APPLICATION_ID = "yunikorn.apache.org/app-id";
/** Spark's application id label. */
export const SPARK_LABEL_APP_ID = "spark-app-selector";

/** Legacy queue label (design 000). */
export const LABEL_QUEUE_NAME = "queue";
/** Canonical queue label. */
export const CANONICAL_LABEL_QUEUE_NAME = "yunikorn.apache.org/queue";
/** Queue annotation (upstream constants.AnnotationQueueName): the same key as the canonical label. */
export const ANNOTATION_QUEUE_NAME = "yunikorn.apache.org/queue";

/** Label set when the application id was generated (design 000; removed upstream in YUNIKORN-2484). */
export const LABEL_DISABLE_STATE_AWARE = "disableStateAware";

/**
 * Set to `"true"` on placeholder pods only (internal prefix since YUNIKORN-2503). corral: only the scheduler and
 * trusted controllers may set it (admission/placeholder.ts, yunikorn/scheduler-identity.ts).
 */
export const ANNOTATION_PLACEHOLDER_FLAG = "internal.yunikorn.apache.org/placeholder";

/** User and groups of the submitter, as JSON `{"user": string, "groups": string[]}` (design 002). */
export const ANNOTATION_USER_INFO = "yunikorn.apache.org/user.info";
/** Legacy user label (design 002 "Backwards compatibility"); the key is configurable. */
export const DEFAULT_USER_LABEL_KEY = "yunikorn.apache.org/username";

/** Pod / PriorityClass annotation: may this pod be preempted by pods of the same application? */
export const ANNOTATION_ALLOW_PREEMPTION = "yunikorn.apache.org/allow-preemption";

/** Namespace annotations that override the namespace regex lists (tri-state: absent, "true", anything else). */
export const ANNOTATION_ENABLE_YUNIKORN = "yunikorn.apache.org/namespace.enableYuniKorn";
/** Namespace annotation overriding whether application ids are generated for its pods (tri-state, as above). */
export const ANNOTATION_GENERATE_APP_ID = "yunikorn.apache.org/namespace.generateAppId";

/** Generated application ids: `yunikorn-<namespace>-autogen`, or `<namespace[:26]>-uniqueautogen`. */
export const AUTOGEN_APP_PREFIX = "yunikorn";
/** Suffix of a namespace's generated id (`yunikorn-<namespace>-autogen`). */
export const AUTOGEN_APP_SUFFIX = "autogen";
/** Suffix of a pod's unique generated id (`<namespace[:26]>-uniqueautogen`). */
export const UNIQUE_AUTOGEN_SUFFIX = "-uniqueautogen";
/**
 * ConfigMap key: a pod naming no application gets an id of its own (`<namespace[:26]>-<pod UID>`); read by the admission
 * controller and, for pods it did not see, by the scheduler (upstream AMFilteringGenerateUniqueAppIds).
 */
export const GENERATE_UNIQUE_APP_IDS_KEY = "admissionController.filtering.generateUniqueAppId";

/** Queue label value used when a pod names none (design 000). */
export const DEFAULT_QUEUE = "root.default";

/** ConfigMaps holding the configuration, in the controller's namespace. */
export const CONFIGMAP_NAME = "yunikorn-configs";
export const DEFAULT_CONFIGMAP_NAME = "yunikorn-defaults";

/** Maximum length of a label value (Kubernetes validation). */
export const LABEL_VALUE_MAX_LENGTH = 63;
