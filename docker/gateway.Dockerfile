# The gateway image: `simfleet gateway` against the Postgres in DATABASE_URL.
# Build from the repository root: docker build -f docker/gateway.Dockerfile -t simfleet-gateway .
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
ENV NODE_ENV=production SIMFLEET_HOST=0.0.0.0 SIMFLEET_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY workers/sample-app ./workers/sample-app
COPY server/dashboard ./server/dashboard
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 7420
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:7420/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
ENTRYPOINT ["node", "dist/server/cli/main.js"]
CMD ["gateway"]
