/**
 * Names of the admission controller itself: webhook paths, port, webhook configuration and entry names
 * (cmd/admissioncontroller/main.go, webhook_manager.go) and the namespace labels its webhooks select on.
 * YuniKorn's label and annotation keys are in yunikorn/constants.ts.
 */

/** Webhook paths and the default port (cmd/admissioncontroller/main.go). */
export const MUTATE_PATH = "/mutate";
/** Path of the ConfigMap validation webhook (upstream `/validate-conf`). */
export const VALIDATE_CONF_PATH = "/validate-conf";
/** corral's addition: the pods/status UPDATE check (user.info must not change through the status subresource). */
export const VALIDATE_PODS_PATH = "/validate-pods";
/** The webhook's HTTPS port (upstream 9089). */
export const DEFAULT_ADMISSION_PORT = 9089;

/** Webhook configuration and entry names (webhook_manager.go). */
export const MUTATING_WEBHOOK_CONFIGURATION = "yunikorn-admission-controller-mutations";
/** The ValidatingWebhookConfiguration's name. */
export const VALIDATING_WEBHOOK_CONFIGURATION = "yunikorn-admission-controller-validations";
/** The pod mutation webhook entry. */
export const MUTATE_PODS_WEBHOOK = "admission-webhook.yunikorn.mutate-pods";
/** The ConfigMap validation webhook entry. */
export const VALIDATE_CONF_WEBHOOK = "admission-webhook.yunikorn.validate-conf";
/** corral's pods/status validation webhook entry. */
export const VALIDATE_POD_STATUS_WEBHOOK = "admission-webhook.yunikorn.validate-pod-status";
