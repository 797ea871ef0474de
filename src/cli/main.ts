/**
 * The `corral` command line.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_ADMISSION_PORT } from "../admission/constants.js";
import { ADMISSION_CONFIG_KEYS } from "../admission/config.js";
import { runAdmission } from "../processes/admission.js";
import { runMutate } from "./mutate.js";
import { readFileSync } from "node:fs";
import { stringify } from "yaml";
import { mutatingWebhookConfiguration, validatingWebhookConfiguration } from "../admission/webhooks.js";
import { type WebhookTarget } from "../webhook/registration.js";

/** A positive integer flag value. @throws InvalidArgumentError otherwise */
function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("must be a port number (0-65535)");
  return n;
}
const collect = (v: string, prev: string[]) => [...prev, v];
function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("must be a positive number");
  return n;
}
function nonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("must be a number >= 0");
  return n;
}

/** Closes the process's servers on SIGTERM/SIGINT, then exits 0. */
function stopOnSignals(close: () => Promise<void>, log?: { info(o: object, m: string): void }): void {
  const stop = async (signal: string) => {
    log?.info({ signal }, "shutting down");
    await close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}

/** The flags of a process that keeps its CAs in a Secret and registers its own webhooks (admission, bootstrapper). */
function registrationOptions(cmd: Command, defaultSecret: string): Command {
  return cmd
    .option("--webhook-url <url>", "register the webhooks with this https base URL (out of cluster) instead of the Service")
    .option("--no-register", "do not create or update the webhook configurations")
    .option("--secret-name <name>", "Secret holding the two CAs", defaultSecret)
    .addOption(new Option("--resync-seconds <n>", "reconcile period of CAs and webhook configurations").default(60).argParser(positive))
    .addOption(
      new Option("--ca-propagation-seconds <n>", "wait after publishing a new caBundle before serving a certificate from a new CA")
        .default(5)
        .argParser(nonNegative),
    );
}

/** Builds the command tree (exported for tests and the README's flag table). */
export function buildCli(): Command {
  const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  const program = new Command("corral")
    .description("Admission and scheduling for Kubernetes batch workloads, compatible with Apache YuniKorn")
    .version(`corral ${version} (Node.js ${process.version})`, "-V, --version", "print corral's version and the Node.js version it runs on")
    .showHelpAfterError();

  const admission = program
    .command("admission")
    .description("Run the admission controller: mutating webhook (/mutate) and config validation (/validate-conf) over HTTPS")
    .option("--standalone", "run without an API server; lookups and keys come from --config", false)
    .option("--config <file>", "YAML or JSON map of configuration keys (see `corral config-keys`)")
    .option("--host <address>", "address to listen on", "0.0.0.0")
    .addOption(new Option("--port <port>", "HTTPS port").default(DEFAULT_ADMISSION_PORT).argParser(port))
    .option(
      "--cert-dir <dir>",
      "serve tls.crt/tls.key from this directory (generated with a self-signed CA when missing); standalone default .corral/admission-certs. In a cluster, leave unset to keep the CAs in a Secret, register the webhooks and rotate automatically",
    )
    .option("--san <name>", "extra DNS name or IP address for a generated server certificate (repeatable)", collect, [])
    .option("--kubeconfig <file>", "kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  registrationOptions(admission, "admission-controller-secrets")
    .addOption(
      new Option("--pki-time-scale <n>", "divide every certificate lifetime by n (testing rotation)").default(1).argParser(positive),
    )
    .action(async (o) => {
      const handle = await runAdmission({
        standalone: o.standalone,
        configFile: o.config,
        host: o.host,
        port: o.port,
        certDir: o.certDir,
        extraSans: o.san,
        kubeconfig: o.kubeconfig,
        webhookUrl: o.webhookUrl,
        register: o.register,
        secretName: o.secretName,
        resyncSeconds: o.resyncSeconds,
        caPropagationSeconds: o.caPropagationSeconds,
        pkiTimeScale: o.pkiTimeScale,
      });
      stopOnSignals(() => handle.close(), handle.log);
    });

  program
    .command("mutate")
    .description("Dry-run the admission decision on manifests offline; prints each object as it would be stored")
    .requiredOption("-f, --file <file>", "multi-document YAML or JSON manifest (- for stdin)")
    .option("--user <name>", "requesting user name", "kubernetes-admin")
    .option("--group <name>", "requesting user's group (repeatable); system:authenticated is added as the API server does", collect, [])
    .option("--exact-groups", "do not add system:authenticated", false)
    .option("--operation <op>", "CREATE or UPDATE", "CREATE")
    .option("--old <file>", "for UPDATE: the objects as currently stored (matched by kind, namespace, name)")
    .option("-n, --namespace <ns>", "namespace for objects that name none", "default")
    .option("--config <file>", "configuration keys and lookups, as for `admission --config`")
    .option("--patch", "print the JSON Patch instead of the resulting object", false)
    .action(async (o) => {
      const code = await runMutate(
        {
          file: o.file,
          user: o.user,
          group: o.group,
          exactGroups: o.exactGroups,
          operation: o.operation,
          old: o.old,
          namespace: o.namespace,
          config: o.config,
          patch: o.patch,
        },
        (s) => process.stdout.write(s),
        (s) => process.stderr.write(s),
      );
      process.exitCode = code;
    });

  program
    .command("webhook-config")
    .description("Print the Mutating/ValidatingWebhookConfiguration YAML for kubectl apply")
    .requiredOption("--ca-file <file>", "PEM CA bundle that signs the server certificate (e.g. ca.crt of --cert-dir)")
    .option("--url <url>", "out-of-cluster base URL, e.g. https://127.0.0.1:9089")
    .option("--service <name>", "in-cluster Service name", "yunikorn-admission-controller-service")
    .option("--service-namespace <ns>", "namespace of the Service", "default")
    .option(
      "--controller-namespace <ns>",
      "the controller's namespace, kept out of the mutating webhook (default: --service-namespace; with --url: none)",
    )
    .addOption(new Option("--service-port <port>", "Service port").default(443).argParser(port))
    .addOption(
      new Option("--failure-policy <policy>", "failure policy of the mutating webhook").choices(["Fail", "Ignore"]).default("Fail"),
    )
    .addOption(
      new Option("--pod-status-policy <policy>", "failure policy of the pods/status check, or Off")
        .choices(["Fail", "Ignore", "Off"])
        .default("Ignore"),
    )
    .addOption(
      new Option("--timeout <seconds>", "webhook timeout in seconds (1-30)").default(5).argParser((v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > 30) throw new InvalidArgumentError("must be 1-30");
        return n;
      }),
    )
    .action((o) => {
      const target: WebhookTarget = o.url
        ? { mode: "url", url: o.url }
        : { mode: "service", name: o.service, namespace: o.serviceNamespace, port: o.servicePort };
      const settings = {
        target,
        caBundle: readFileSync(o.caFile, "utf8"),
        controllerNamespace: o.controllerNamespace,
        mutateFailurePolicy: o.failurePolicy,
        podStatusPolicy: o.podStatusPolicy,
        timeoutSeconds: o.timeout,
      };
      process.stdout.write(
        stringify(mutatingWebhookConfiguration(settings)) + "---\n" + stringify(validatingWebhookConfiguration(settings)),
      );
    });

  const bootstrapper = program
    .command("bootstrapper")
    .description("Run the runtime bootstrapper: fail-open pod manipulation webhook, housekeeping and shared-resource sync")
    .option("--host <address>", "address to listen on", "0.0.0.0")
    .addOption(new Option("--port <port>", "HTTPS port").default(9443).argParser(port))
    .option("--standalone", "no cluster: the webhook only, configuration from --config, certificate in --cert-dir", false)
    .option("--config <file>", "standalone: the rt-bootstrapper-config.json content")
    .option("--cert-dir <dir>", "standalone: tls.crt/tls.key/ca.crt (generated when missing)", ".corral/bootstrapper-certs")
    .option("--kubeconfig <file>", "kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  registrationOptions(bootstrapper, "rt-bootstrapper-webhook-secrets").action(async (o) => {
    const { runBootstrapper, runBootstrapperStandalone } = await import("../processes/bootstrapper.js");
    if (o.standalone && !o.config) throw new Error("--standalone needs --config <rt-bootstrapper-config.json>");
    const h = o.standalone
      ? await runBootstrapperStandalone({ host: o.host, port: o.port, configFile: o.config, certDir: o.certDir })
      : await runBootstrapper({
          host: o.host,
          port: o.port,
          kubeconfig: o.kubeconfig,
          webhookUrl: o.webhookUrl,
          register: o.register,
          secretName: o.secretName,
          resyncSeconds: o.resyncSeconds,
          caPropagationSeconds: o.caPropagationSeconds,
        });
    stopOnSignals(() => h.close());
  });

  program
    .command("scheduler")
    .description(
      "Run the scheduler: the Kubernetes shim around the core (standalone: binds pods itself; plugin: kube-scheduler extender), or --standalone without a cluster",
    )
    .option("--standalone", "run without an API server (REST API over --config or --scenario only)", false)
    .addOption(
      new Option(
        "--mode <mode>",
        "cluster mode: standalone (corral binds pods) or plugin (kube-scheduler extender: POST /scheduler/filter and /scheduler/bind)",
      )
        .choices(["standalone", "plugin"])
        .default("standalone"),
    )
    .option("--kubeconfig <file>", "kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
    .option(
      "--namespace <ns>",
      "namespace of the yunikorn-configs/yunikorn-defaults ConfigMaps and the leader Lease (env NAMESPACE)",
      process.env.NAMESPACE ?? "default",
    )
    .option("--scheduler-name <name>", "spec.schedulerName of the pods to schedule", "yunikorn")
    .option("--policy-group <name>", "service.policyGroup: the queue configuration is the ConfigMap key <name>.yaml", "queues")
    .option("--config <file>", "--standalone: queues.yaml (default: one partition with root.default)")
    .option("--host <address>", "address to listen on", "0.0.0.0")
    .addOption(
      new Option("--port <port>", "HTTP port of the REST API (plugin mode: also the extender verbs)").default(9080).argParser(port),
    )
    .option(
      "--scenario <file>",
      "--standalone: load the nodes and applications of a simulate scenario at start (its queues replace --config)",
    )
    .addOption(
      new Option("--interval-ms <ms>", "milliseconds between scheduling cycles when no event triggers one")
        .default(100)
        .argParser(positiveInt),
    )
    .addOption(new Option("--bind-concurrency <n>", "binding calls in flight at once").default(64).argParser(positiveInt))
    .addOption(
      new Option("--bind-attempts <n>", "attempts per binding before the allocation is rolled back").default(5).argParser(positiveInt),
    )
    .addOption(
      new Option("--event-queue-limit <n>", "events and pod status writes queued at most (oldest dropped beyond)")
        .default(10000)
        .argParser(positiveInt),
    )
    .addOption(new Option("--resync-seconds <s>", "seconds between full resyncs of the informer caches").default(60).argParser(positiveInt))
    .option("--leader-elect", "campaign for a coordination.k8s.io Lease; only the leader schedules", false)
    .option("--lease-name <name>", "name of the leader Lease", "corral-scheduler")
    .option("--identity <id>", "leader election identity (default: hostname_pid)")
    .option(
      "--advertise-address <url>",
      "with --leader-elect: REST base URL other replicas reach this one at, published on the Lease; followers forward REST reads to the leader's (default: http://$POD_IP:<port> when POD_IP is set)",
    )
    .option(
      "--placeholder-image <image>",
      "gang scheduling: image of placeholder pods (overrides service.placeholderImage; default registry.k8s.io/pause:3.7; an air-gapped cluster needs its own mirror)",
    )
    .action(async (o) => {
      const { createLogger } = await import("../util/logger.js");
      const log = createLogger("corral-scheduler", process.env.LOG_LEVEL ?? "info");
      if (!o.standalone) {
        const { hostname } = await import("node:os");
        const { runScheduler } = await import("../processes/scheduler.js");
        const s = await runScheduler({
          kubeconfig: o.kubeconfig,
          namespace: o.namespace,
          schedulerName: o.schedulerName,
          mode: o.mode,
          host: o.host,
          port: o.port,
          policyGroup: o.policyGroup,
          intervalMs: o.intervalMs,
          bindConcurrency: o.bindConcurrency,
          bindAttempts: o.bindAttempts,
          eventQueueLimit: o.eventQueueLimit,
          resyncSeconds: o.resyncSeconds,
          leaderElect: o.leaderElect,
          leaseName: o.leaseName,
          placeholderImage: o.placeholderImage,
          identity: o.identity ?? `${hostname()}_${process.pid}`,
          log,
          advertiseAddress: o.advertiseAddress ?? (process.env.POD_IP ? `http://${process.env.POD_IP}:${o.port}` : undefined),
        });
        stopOnSignals(() => s.close());
        return;
      }
      const { readFile } = await import("node:fs/promises");
      const { SchedulerCore, DEFAULT_CONFIG } = await import("../scheduler/core/scheduler.js");
      const { startRestServer } = await import("../scheduler/rest/server.js");
      const { EventSystem } = await import("../scheduler/events/system.js");
      const { randomUUID } = await import("node:crypto");
      const { parseScenario } = await import("../scheduler/simulate.js");
      const events = new EventSystem({ now: () => Date.now(), instanceUUID: randomUUID() });
      const scenario = o.scenario ? parseScenario(await readFile(o.scenario, "utf8")) : undefined;
      const text = scenario ? scenario.queues : o.config ? await readFile(o.config, "utf8") : DEFAULT_CONFIG;
      let core;
      try {
        core = new SchedulerCore(() => Date.now(), text, { events: events.add });
      } catch (err) {
        throw new Error(`${o.config ?? "default config"}: ${(err as Error).message}`, { cause: err });
      }
      const c = core;
      if (scenario) {
        const { loadScenario } = await import("../scheduler/simulate.js");
        const r = loadScenario(c, scenario);
        log.info({ nodes: r.nodes, applications: r.applications, rejected: r.rejected }, "scenario loaded");
      }
      // The scheduling loop: a cycle every --interval-ms, as upstream's schedule() timer.
      const loop = setInterval(() => {
        for (const a of c.schedule()) log.info({ application: a.appId, allocation: a.key, node: a.nodeId, queue: a.queue }, "allocated");
        for (const s of c.stateChanges()) log.info({ application: s.appId, from: s.from, to: s.to }, "application state");
        // as the shim does after a cycle: why each waiting ask waits (allocation logs, REQUEST events)
        let checked = 0;
        for (const p of c.partitionNames())
          for (const a of c.applicationViews("active", p, { holds: false }))
            for (const x of a.asks) if (checked++ < 2000) c.checkHold(a.id, x.key, p);
      }, o.intervalMs);
      loop.unref();
      const rest = await startRestServer({ host: o.host, port: o.port, log, core: c, events, config: () => c.appliedConfig });
      stopOnSignals(() => rest.close());
    });

  program
    .command("simulate")
    .description("What-if: run the scheduler on a virtual clock over a scenario; per queue and per user allocation, waits and quota holds")
    .argument("<scenario>", "scenario YAML (queues, nodes, applications; see examples/scenario.yaml)")
    .option("--csv <file>", "also write the allocation time series as CSV")
    .action(async (file: string, o: { csv?: string }) => {
      const { readFile, writeFile } = await import("node:fs/promises");
      const { parseScenario, simulate, formatReport, reportCsv } = await import("../scheduler/simulate.js");
      const report = simulate(parseScenario(await readFile(file, "utf8")));
      process.stdout.write(formatReport(report));
      if (o.csv) await writeFile(o.csv, reportCsv(report));
    });

  program
    .command("validate-config")
    .description("Validate a queues.yaml file as the scheduler does; prints OK or the error, exit 1 when invalid")
    .argument("<file>", "queues.yaml (- for stdin)")
    .action(async (file: string) => {
      const { readFile } = await import("node:fs/promises");
      const { validateQueuesYaml } = await import("../scheduler/core/validate.js");
      const { text: streamText } = await import("node:stream/consumers");
      const text = file === "-" ? await streamText(process.stdin) : await readFile(file, "utf8");
      const r = validateQueuesYaml(text);
      if (r.allowed) process.stdout.write("OK\n");
      else {
        process.stdout.write(`invalid: ${r.reason}\n`);
        process.exitCode = 1;
      }
    });

  program
    .command("scheduler-config")
    .description(
      "Print the KubeSchedulerConfiguration of plugin mode (corral as kube-scheduler's extender) in the API version that kube-scheduler of --kube-version reads",
    )
    .requiredOption("--kube-version <version>", "Kubernetes version of the cluster, e.g. 1.20, v1.30.4 (kubectl version)")
    .option("--url-prefix <url>", "corral's extender endpoint", "http://yunikorn-service.corral.svc:9080/scheduler")
    .option("--lock-namespace <ns>", "namespace of kube-scheduler's leader-election lock", "corral")
    .action(async (o) => {
      const { parseKubeVersion } = await import("../kube/discovery.js");
      const { kubeSchedulerConfigApiVersion, pluginModeSchedulerConfig } = await import("../kube/scheduler-config.js");
      const version = parseKubeVersion(o.kubeVersion);
      if (!version) throw new Error(`--kube-version ${JSON.stringify(o.kubeVersion)}: expected major.minor such as 1.30 or v1.30.4`);
      const api = kubeSchedulerConfigApiVersion(version);
      if (!api.ok) throw new Error(`--kube-version ${o.kubeVersion}: ${api.error}`);
      process.stdout.write(
        `# kube-scheduler --config <this file>; plugin mode for Kubernetes ${version.major}.${version.minor} (docs/plugin-mode.md)\n`,
      );
      process.stdout.write(
        stringify(
          pluginModeSchedulerConfig({ apiVersion: api.apiVersion, urlPrefix: o.urlPrefix, leaderElectionNamespace: o.lockNamespace }),
        ),
      );
    });

  program
    .command("config-keys")
    .description("List the admission controller's configuration keys with defaults and environment variables")
    .action(() => {
      for (const [key, spec] of Object.entries(ADMISSION_CONFIG_KEYS)) {
        process.stdout.write(
          `${key}\tdefault ${JSON.stringify(spec.default)}\t${spec.env.length ? `env ${spec.env.join(", ")}` : ""}\t${spec.doc}\n`,
        );
      }
    });

  return program;
}

/** Runs the CLI with `argv` (process.argv form). */
export async function main(argv: string[]): Promise<void> {
  await buildCli().parseAsync(argv);
}
