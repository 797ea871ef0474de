#!/usr/bin/env bash
# Starts the local Kubernetes test bed on 127.0.0.1: etcd (Debian's etcd-server), kube-apiserver and
# kube-controller-manager v1.20.2 (built by build.sh), with X.509 client users:
#   admin     CN=admin                          O=system:masters
#   alice     CN=alice                          O=users, O=devops
#   bob       CN=bob                            O=users
#   frontend  CN=airflow                        O=frontends       (an external front end submitting for others)
#   kube-scheduler (for the scheduler issues)   CN=system:kube-scheduler
# The controller-manager runs with --use-service-account-credentials=true, so each controller acts as its own
# service account in kube-system.
#
# Environment:
#   CORRAL_TESTBED_DIR      state directory (certs, kubeconfigs, logs, pids; default ${TMPDIR:-/tmp}/corral-testbed)
#   CORRAL_TESTBED_CACHE    where build.sh put the binaries (default $HOME/.cache/corral-testbed)
#   CORRAL_APISERVER_PORT   secure port of kube-apiserver (default 16443)
#   CORRAL_ETCD_PORT        etcd client port (default 23790; peer port is +10)
#   CORRAL_TESTBED_SCHEDULER=1   also start kube-scheduler
# Prints the path of an env file to source (KUBECONFIG_ADMIN, KUBECONFIG_ALICE, ...). Stop with down.sh.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR="${CORRAL_TESTBED_DIR:-${TMPDIR:-/tmp}/corral-testbed}"
CACHE="${CORRAL_TESTBED_CACHE:-$HOME/.cache/corral-testbed}"
BIN="$CACHE/bin"
API_PORT="${CORRAL_APISERVER_PORT:-16443}"
ETCD_PORT="${CORRAL_ETCD_PORT:-23790}"
PEER_PORT=$((ETCD_PORT + 10))
log() { printf '[testbed] %s\n' "$*" >&2; }

bash "$HERE/build.sh"

if [ -f "$DIR/pids" ]; then
  log "a test bed is recorded in $DIR; stopping it first"
  bash "$HERE/down.sh"
fi
mkdir -p "$DIR"/{pki,kubeconfig,logs}
: >"$DIR/pids"
ETCD_DATA="$DIR/etcd-data"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then ETCD_DATA="/dev/shm/corral-testbed-etcd-$API_PORT"; fi
rm -rf "$ETCD_DATA" "$DIR/logs"
mkdir -p "$DIR/logs"
echo "$ETCD_DATA" >"$DIR/etcd-data-path"

# --- PKI (reused across starts) -------------------------------------------------------------------------------
P="$DIR/pki"
if [ ! -f "$P/ca.crt" ]; then
  log "creating certificates"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$P/ca.key" -out "$P/ca.crt" -days 3650 \
    -subj "/CN=corral-testbed-ca" 2>/dev/null
  openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
  openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
  cat >"$P/server.ext" <<EOF
basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc
EOF
  printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"$P/client.ext"
  sign() { # name subject extfile
    openssl req -new -newkey rsa:2048 -nodes -keyout "$P/$1.key" -out "$P/$1.csr" -subj "$2" 2>/dev/null
    openssl x509 -req -in "$P/$1.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -days 3650 \
      -extfile "$3" -out "$P/$1.crt" 2>/dev/null
  }
  sign apiserver "/CN=kube-apiserver" "$P/server.ext"
  sign admin "/CN=admin/O=system:masters" "$P/client.ext"
  sign alice "/CN=alice/O=users/O=devops" "$P/client.ext"
  sign bob "/CN=bob/O=users" "$P/client.ext"
  sign frontend "/CN=airflow/O=frontends" "$P/client.ext"
  sign kube-controller-manager "/CN=system:kube-controller-manager" "$P/client.ext"
  sign kube-scheduler "/CN=system:kube-scheduler" "$P/client.ext"
fi

# Audit log of service-account requests outside kube-system (the e2e tests compare corral's RBAC with its calls).
# RequestReceived is kept: a watch reaches ResponseComplete only when it ends, which may be after a test reads the log.
cat >"$DIR/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    userGroups: ["system:serviceaccounts:kube-system"]
  - level: Metadata
    userGroups: ["system:serviceaccounts"]
  - level: None
EOF

SERVER="https://127.0.0.1:$API_PORT"
for u in admin alice bob frontend kube-controller-manager kube-scheduler; do
  cat >"$DIR/kubeconfig/$u.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: corral-testbed
  cluster:
    server: $SERVER
    certificate-authority: $P/ca.crt
users:
- name: $u
  user:
    client-certificate: $P/$u.crt
    client-key: $P/$u.key
contexts:
- name: $u@corral-testbed
  context: {cluster: corral-testbed, user: $u}
current-context: $u@corral-testbed
EOF
done

start() { # name command...
  local name=$1; shift
  "$@" >"$DIR/logs/$name.log" 2>&1 &
  echo "$name $!" >>"$DIR/pids"
}

log "starting etcd on 127.0.0.1:$ETCD_PORT"
start etcd etcd --name corral-testbed --data-dir "$ETCD_DATA" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
  --initial-cluster "corral-testbed=http://127.0.0.1:$PEER_PORT" --listen-metrics-urls "" --log-level warn

log "starting kube-apiserver on $SERVER"
start kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" --insecure-port 0 \
  --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" \
  --client-ca-file "$P/ca.crt" \
  --service-account-key-file "$P/sa.pub" --service-account-signing-key-file "$P/sa.key" \
  --service-account-issuer https://kubernetes.default.svc \
  --service-cluster-ip-range 10.96.0.0/16 \
  --authorization-mode RBAC --allow-privileged=true \
  --enable-priority-and-fairness=false \
  --audit-policy-file "$DIR/audit-policy.yaml" --audit-log-path "$DIR/logs/audit.log" \
  --profiling=false --v=1

for i in $(seq 1 120); do
  if curl -sf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" "$SERVER/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$(awk '/kube-apiserver/{print $2}' "$DIR/pids")" 2>/dev/null; then
    tail -n 30 "$DIR/logs/kube-apiserver.log" >&2; log "kube-apiserver exited"; exit 1
  fi
  sleep 0.25
  [ "$i" = 120 ] && { tail -n 30 "$DIR/logs/kube-apiserver.log" >&2; log "kube-apiserver not ready after 30s"; exit 1; }
done
log "kube-apiserver ready"

log "starting kube-controller-manager"
start kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig "$DIR/kubeconfig/kube-controller-manager.kubeconfig" \
  --use-service-account-credentials=true \
  --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" \
  --cluster-signing-cert-file "$P/ca.crt" --cluster-signing-key-file "$P/ca.key" \
  --leader-elect=false --port 0 --secure-port 0 \
  --controllers '*,-nodelifecycle,-nodeipam,-cloud-node-lifecycle,-route,-service,-attachdetach,-persistentvolume-binder,-persistentvolume-expander,-pvc-protection,-pv-protection,-ttl,-bootstrapsigner,-tokencleaner,-csrsigning,-csrapproving,-csrcleaner' \
  --concurrent-deployment-syncs 10 --concurrent-replicaset-syncs 10 --kube-api-qps 200 --kube-api-burst 400 \
  --v=1

if [ "${CORRAL_TESTBED_SCHEDULER:-0}" = 1 ]; then
  log "starting kube-scheduler"
  start kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig "$DIR/kubeconfig/kube-scheduler.kubeconfig" --leader-elect=false --port 0 --secure-port 0 --v=1
fi

cat >"$DIR/env" <<EOF
CORRAL_TESTBED_DIR=$DIR
CORRAL_APISERVER=$SERVER
KUBECONFIG_ADMIN=$DIR/kubeconfig/admin.kubeconfig
KUBECONFIG_ALICE=$DIR/kubeconfig/alice.kubeconfig
KUBECONFIG_BOB=$DIR/kubeconfig/bob.kubeconfig
KUBECONFIG_FRONTEND=$DIR/kubeconfig/frontend.kubeconfig
KUBECONFIG_SCHEDULER=$DIR/kubeconfig/kube-scheduler.kubeconfig
CORRAL_TESTBED_BIN=$BIN
EOF
log "up: source $DIR/env"
echo "$DIR/env"
