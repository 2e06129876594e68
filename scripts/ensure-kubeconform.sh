#!/usr/bin/env bash
# Makes sure the Kubernetes manifest's checkers exist under <repo>/.tools (gitignored), for DeployFilesTest:
#   .tools/kubeconform                          kubeconform, the manifest validator (go install of the pinned version)
#   .tools/kubernetes-json-schema/<version>/    the JSON schemas it validates against, made by scripts/kube-tools
#                                               (kube-schemas) from the Kubernetes API's own OpenAPI v3 documents,
#                                               api/openapi-spec/v3 of the k8s.io/kubernetes module of that version
#   .tools/pod-security-check                   the Pod Security admission controller's checks
#                                               (k8s.io/pod-security-admission), built from scripts/kube-tools
# Everything comes from the Go module proxy through the go command, so it works where only package registries are
# reachable (kubeconform's own default, downloading schemas from GitHub at run time, does not). Needs a Go toolchain.
# Prints nothing else on success; diagnostics go to stderr. Each piece already there is kept (the checker is rebuilt,
# which the Go build cache makes quick).
set -euo pipefail

KUBECONFORM_MODULE="github.com/yannh/kubeconform/cmd/kubeconform"
KUBECONFORM_VERSION="v0.8.0"
# The Kubernetes release whose API the manifest is checked against; keep k8s.io/* in scripts/kube-tools/go.mod at
# the matching v0.x release.
KUBERNETES_VERSION="v1.37.2"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${repo_root}/.tools"
schemas_dir="${tools_dir}/kubernetes-json-schema/${KUBERNETES_VERSION}"

if ! command -v go >/dev/null 2>&1; then
  echo "ensure-kubeconform.sh: no Go toolchain to build kubeconform and the schemas; install Go (https://go.dev/dl/)" >&2
  exit 1
fi
mkdir -p "${tools_dir}"

if [[ ! -x "${tools_dir}/kubeconform" ]]; then
  echo "ensure-kubeconform.sh: go install ${KUBECONFORM_MODULE}@${KUBECONFORM_VERSION}" >&2
  GOBIN="${tools_dir}" go install "${KUBECONFORM_MODULE}@${KUBECONFORM_VERSION}" >&2
fi

(cd "${repo_root}/scripts/kube-tools" && go build -o "${tools_dir}/pod-security-check" ./cmd/pod-security-check >&2)

if [[ ! -f "${schemas_dir}/deployment-apps-v1.json" ]]; then
  echo "ensure-kubeconform.sh: generating the JSON schemas of Kubernetes ${KUBERNETES_VERSION}" >&2
  # Outside any module, so that the download touches no go.mod.
  scratch="$(mktemp -d)"
  trap 'rm -rf "${scratch}"' EXIT
  k8s_dir="$(cd "${scratch}" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  if [[ -z "${k8s_dir}" || ! -d "${k8s_dir}/api/openapi-spec/v3" ]]; then
    echo "ensure-kubeconform.sh: go mod download k8s.io/kubernetes@${KUBERNETES_VERSION} gave no api/openapi-spec/v3" >&2
    exit 1
  fi
  rm -rf "${schemas_dir}.tmp"
  (cd "${repo_root}/scripts/kube-tools" && go run ./cmd/kube-schemas "${k8s_dir}/api/openapi-spec/v3" "${schemas_dir}.tmp" >&2)
  rm -rf "${schemas_dir}"
  mv "${schemas_dir}.tmp" "${schemas_dir}"
fi
