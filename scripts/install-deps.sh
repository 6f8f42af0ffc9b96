#!/usr/bin/env bash
# Installs the Debian packages Axon needs to build and test. Idempotent:
# silent when everything is present, otherwise one apt-get install of what
# is missing. Run as root or with sudo available.
set -euo pipefail

packages=(
  g++ cmake ninja-build make          # the build
  libgtest-dev                        # unit tests
  libz3-dev z3                        # the prover (z3 re-checks emitted proofs in tests)
  nlohmann-json3-dev                  # hardware descriptions (hw/*.json)
  libsqlite3-dev                      # the persistent kernel cache (src/tune/cache.cpp)
  python3 python3-numpy               # the NumPy cross-check (/usr/bin/python3)
  libopenblas0-pthread                # NumPy on OpenBLAS, the fair baseline of the benchmark
  python3-venv                        # the benchmark's virtual environment (scripts/bench-env.sh)
  python3-dev python3-pytest          # the Python package: its extension module and its tests
  libdnnl-dev libopenblas-dev         # the benchmark's expert-library baselines (bench/baselines)
  libgoogle-perftools4                # tcmalloc, PyTorch's fair allocator in the benchmark
  clang libclang-rt-14-dev            # libFuzzer for the fuzz targets
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "axon: installing missing Debian packages: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "axon: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
