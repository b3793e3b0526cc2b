#!/usr/bin/env bash
# Builds (once) and starts llama.cpp's llama-server with a tiny random-weights model on loopback.
# The build and the model are cached under $LLAMA_CACHE (default /var/cache/llmprober/llama) and
# rebuilt only when missing. Prints the base URL on success.
#
# usage: .ci/llama/ensure.sh build        # build binary and model if missing
#        .ci/llama/ensure.sh start PORT   # start the server (builds first if needed), wait for /health
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${LLAMA_CACHE:-/var/cache/llmprober/llama}
version=3.21.1
bin=$cache/llama-server
model=$cache/model.gguf

# The Debian interpreter, which has python3-numpy (a python3 earlier on PATH may not).
py=/usr/bin/python3

build() {
  if [ -x "$bin" ] && [ -s "$model" ]; then
    return 0
  fi
  mkdir -p "$cache"
  export DEBIAN_FRONTEND=noninteractive
  if ! command -v cmake >/dev/null || ! "$py" -c 'import numpy, yaml' 2>/dev/null; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends cmake python3 python3-numpy python3-yaml >/dev/null
  fi
  # The source tree stays in the cache until both artefacts exist, so an
  # interrupted or partly failed build resumes instead of starting over.
  src=$cache/src
  mkdir -p "$src"
  (
    cd "$src"
    if [ ! -d llama.cpp ]; then
      npm pack "node-llama-cpp@$version" --silent >/dev/null
      tar xzf "node-llama-cpp-$version.tgz" package/llama/gitRelease.bundle
      git clone -q package/llama/gitRelease.bundle llama.cpp.tmp
      mv llama.cpp.tmp llama.cpp
    fi
    if [ ! -x "$bin" ]; then
      cmake -S llama.cpp -B llama.cpp/build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF >cmake.log 2>&1 || { tail -50 cmake.log; exit 1; }
      cmake --build llama.cpp/build --target llama-server -j"$(nproc)" >build.log 2>&1 || { tail -50 build.log; exit 1; }
      cp llama.cpp/build/bin/llama-server "$bin.tmp" && mv "$bin.tmp" "$bin"
    fi
    if [ ! -s "$model" ]; then
      PYTHONPATH=llama.cpp/gguf-py "$py" "$here/gen_random_llama.py" \
        llama.cpp/models/ggml-vocab-llama-spm.gguf model.gguf 256 4 4 768 >/dev/null
      mv model.gguf "$model"
    fi
  )
  rm -rf "$src"
}

start() {
  local port=$1
  build
  "$bin" -m "$model" --alias random-llama --host 127.0.0.1 --port "$port" \
    -c 4096 -np 4 -t 2 --metrics --no-webui --ignore-eos --offline \
    >"${LLAMA_LOG:-/tmp/llama-server.log}" 2>&1 &
  echo $! >"${LLAMA_PIDFILE:-/tmp/llama-server.pid}"
  for _ in $(seq 1 300); do
    if curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; then
      echo "http://127.0.0.1:$port"
      return 0
    fi
    sleep 0.2
  done
  echo "llama-server did not become healthy; log:" >&2
  tail -50 "${LLAMA_LOG:-/tmp/llama-server.log}" >&2
  return 1
}

case "${1:-}" in
  build) build ;;
  start) start "${2:?port}" ;;
  *) echo "usage: $0 build | start PORT" >&2; exit 2 ;;
esac
