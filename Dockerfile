# corral image: node:20 runtime, compiled JavaScript and the built dashboard (dist/ui), production dependencies only,
# non-root.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY ui ./ui
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY bin ./bin
USER 65532:65532
ENTRYPOINT ["node", "/app/bin/corral.js"]
