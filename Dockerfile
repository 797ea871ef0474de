# corral image: Node.js 24 LTS (Debian 13 slim), compiled JavaScript and the built dashboard (dist/ui), production
# dependencies only, non-root.
#   docker build -t corral:0.1.0 .
#   docker run --rm corral:0.1.0 --version
FROM node:24-trixie-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: the image brings its own Node.js 24, so the `node` dev dependency's download is skipped (the
# production dependencies have no install scripts)
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY ui ./ui
RUN node node_modules/typescript/bin/tsc -p tsconfig.json && node node_modules/vite/bin/vite.js build --config ui/vite.config.ts \
  && npm prune --omit=dev --ignore-scripts

FROM node:24-trixie-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY bin ./bin
# numeric, so that runAsNonRoot can check it
USER 65532:65532
ENTRYPOINT ["node", "/app/bin/corral.js"]
