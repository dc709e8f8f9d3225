# A stand-in for the official nginx image, made from Debian's `nginx` package
# for machines that reach no container registry (CI: scripts/image-check.sh
# runs compose.yaml on it). Same interface as the official image where
# compose.yaml relies on it: the configuration at /etc/nginx/nginx.conf (a
# mount), nginx in the foreground, logs to the container's output.
#   docker build -f deploy/local-images/nginx.Dockerfile --build-arg BASE_IMAGE=framehook-node:24 \
#     --network host -t framehook-nginx deploy/local-images
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
# No service started at install: the build runs on the host's network (Debian's package starts nginx on :80).
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
 && apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
# nginx's graceful shutdown, as the official image.
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
