# electra-server image: Debian 12 slim, non-root, models mounted at /models.
#
#   docker build -t electra .
#   docker run --rm -p 8080:8080 -v "$PWD/models:/models:ro" --stop-timeout 40 electra
#       serves /models/default (any Hugging Face ELECTRA directory); more models:
#       -e ELECTRA_MODEL=default=/models/default,sst2=/models/sst2
#   docker run --rm electra --help                  # every option; each is also ELECTRA_<OPTION>
#   docker run --rm --entrypoint electra-train electra pretrain --help
#
# Logs are JSON lines on stdout. HEALTHCHECK probes GET /health with the
# binary itself (no curl in the image). On `docker stop` the server drains
# accepted requests for up to ELECTRA_DRAIN_TIMEOUT (30 s): give it a longer
# --stop-timeout than that (Docker's default is 10 s).
#
# The package lists below are deploy/install-deps.sh's build and runtime lists
# (tests/e2e/test_deploy_docker.sh checks they agree).

FROM debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential pkg-config libopenblas-dev libmicrohttpd-dev libcjson-dev libuv1-dev libutf8proc-dev libdnnl-dev libhunspell-dev hunspell-en-gb hunspell-en-us libsphinxbase-dev pocketsphinx-en-us \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# PORTABLE=1: no -march=native, so the image runs on any x86-64 CPU
# (OpenBLAS and oneDNN still pick their kernels for the CPU at run time).
RUN make -j"$(nproc)" PORTABLE=1 build/bin/electra-server build/bin/electra-train \
 && strip build/bin/electra-server build/bin/electra-train

FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libopenblas0-pthread libgomp1 libmicrohttpd12 libcjson1 libuv1 libutf8proc2 libdnnl2 libhunspell-1.7-0 hunspell-en-gb hunspell-en-us libsphinxbase3 pocketsphinx-en-us \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 electra \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin electra \
 && mkdir -p /models
COPY --from=build /src/build/bin/electra-server /src/build/bin/electra-train /usr/local/bin/
ENV ELECTRA_HOST=0.0.0.0 \
    ELECTRA_PORT=8080 \
    ELECTRA_MODEL=default=/models/default \
    ELECTRA_LOG_FORMAT=json \
    ELECTRA_DRAIN_TIMEOUT=30
VOLUME /models
EXPOSE 8080
# Numeric, so Kubernetes' runAsNonRoot can verify it without /etc/passwd.
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["electra-server", "--healthcheck"]
ENTRYPOINT ["electra-server"]
