# Node stand-ins for two of compose.yaml's registry images, for machines that
# reach no container registry (CI: scripts/image-check.sh with
# deploy/compose.local-images.yaml): the S3 store (s3rver, as the tests use it,
# in place of SeaweedFS, which has no Debian package) with the bucket job, and
# the mail catcher (an SMTP server that logs and drops what it receives, in
# place of Mailpit). The versions are the ones package-lock.json pins.
#   docker build -f deploy/local-images/standins.Dockerfile --build-arg BASE_IMAGE=framehook-node:24 \
#     --network host -t framehook-standins deploy/local-images
ARG BASE_IMAGE=node:24-slim
FROM ${BASE_IMAGE}
ARG S3RVER_VERSION=3.7.1
ARG SMTP_SERVER_VERSION=3.21.6
WORKDIR /srv
RUN npm install --omit=dev --no-audit --no-fund --no-package-lock --silent \
      "s3rver@$S3RVER_VERSION" "smtp-server@$SMTP_SERVER_VERSION" \
 && rm -rf /root/.npm \
 && mkdir -p /data && chown node:node /data
COPY s3.mjs bucket.mjs mail.mjs ./
USER node
