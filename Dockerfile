# KeepGraph's image: the packed `keepgraph` tarball (scripts/pack.ts)
# installed with npm as a stranger installs it: built JavaScript and its
# production dependencies, no workspace, no tsx. It runs as a non-root user
# with a private data volume and the default embedding model inside.
# docker-compose.yml builds it for the API (`start`) and the workers (`worker`).
FROM node:20-bookworm AS pack
ENV ONNXRUNTIME_NODE_INSTALL_CUDA=skip
RUN npm i -g pnpm@9
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile && pnpm -s pack:keepgraph --out /packs

FROM node:20-bookworm-slim
ENV ONNXRUNTIME_NODE_INSTALL_CUDA=skip
COPY --from=pack /packs/keepgraph-*.tgz /tmp/
RUN npm install -g --omit=dev --no-audit --no-fund /tmp/keepgraph-*.tgz \
 && rm /tmp/keepgraph-*.tgz && npm cache clean --force
# A fixed numeric id, so that the host and orchestrators resolve it alike.
RUN groupadd --system --gid 10001 keepgraph \
 && useradd --system --uid 10001 --gid keepgraph --create-home --home-dir /home/keepgraph keepgraph \
 && mkdir -m 0700 /data && chown keepgraph:keepgraph /data
USER 10001:10001
ENV KEEPGRAPH_HOST=0.0.0.0 \
    KEEPGRAPH_PORT=7411 \
    KEEPGRAPH_DATA_DIR=/data \
    KEEPGRAPH_MODELS_DIR=/home/keepgraph/models
# The default model, from Maven Central, while the image is built.
RUN keepgraph models fetch
VOLUME /data
EXPOSE 7411
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.KEEPGRAPH_PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["keepgraph"]
CMD ["start"]
