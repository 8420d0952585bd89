# A Linux host worker: `simfleet worker`, with Debian's Chromium for web devices and adb for Android
# emulators. The emulators themselves need KVM and run on the host, not in this image: run the
# container with the host's network (`network_mode: host`) so adb and the emulator console ports on
# 127.0.0.1 reach them, and mount the console token (see docs/hosts.md).
# Build from the repository root: docker build -f docker/worker.Dockerfile -t simfleet-worker .
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY openapi ./openapi
COPY server ./server
COPY workers ./workers
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends adb chromium fonts-dejavu-core libjemalloc2 tesseract-ocr tesseract-ocr-eng \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(dpkg -L libjemalloc2 | grep '/libjemalloc.so.2$')" /usr/local/lib/libjemalloc.so.2
# jemalloc, not glibc's malloc: in two 30-minute soaks (README, "Soak") the worker's RSS was flat
# from the sixth minute on jemalloc, and under glibc it climbed for twenty minutes and levelled off
# about 60 MB higher, with about the same JS heap and native memory. Remove the line below to run
# on glibc.
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2
ENV NODE_ENV=production SIMFLEET_DATA_DIR=/data SIMFLEET_CHROMIUM=/usr/bin/chromium SIMFLEET_ADB=/usr/bin/adb
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY workers/sample-app ./workers/sample-app
RUN mkdir -p /data && chown node:node /data
USER node
ENTRYPOINT ["node", "dist/server/cli/main.js"]
CMD ["worker"]
