# syntax=docker/dockerfile:1
# Every process of the stack from one recipe: TypeScript compiled in a build
# stage, then only that workspace's production dependencies in a slim runtime
# image. Build from the repository root, naming the process:
#   docker build --build-arg SERVICE=billing .    (gateway, billing, catalogue or sessions)
# An exact release, so that a rebuild gets the same Node.js (docs/operations.md: pinned images).
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Every workspace's manifest, so that npm ci can resolve the lock file.
COPY package.json package-lock.json tsconfig.base.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/service-kit/package.json libs/service-kit/
COPY libs/devstack/package.json libs/devstack/
COPY libs/ops/package.json libs/ops/
COPY clients/typescript/package.json clients/typescript/
COPY services/gateway/package.json services/gateway/
COPY services/catalogue/package.json services/catalogue/
COPY services/billing/package.json services/billing/
COPY services/sessions/package.json services/sessions/
COPY tools/cli/package.json tools/cli/
COPY tests/e2e/package.json tests/e2e/
RUN npm ci --no-audit --no-fund
# Declared after the install, so that the four images share its layer.
ARG SERVICE
RUN test -n "${SERVICE}" && test -f "services/${SERVICE}/package.json" \
 || { echo "Name the process: --build-arg SERVICE=gateway|billing|catalogue|sessions" >&2; exit 1; }
COPY libs/contracts libs/contracts
COPY libs/service-kit libs/service-kit
COPY services/${SERVICE} services/${SERVICE}
RUN npx tsc -b services/${SERVICE} \
 && npm ci --omit=dev --no-audit --no-fund --workspace @clinic/${SERVICE}

FROM ${NODE_IMAGE} AS runtime
ARG SERVICE
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/libs/contracts/package.json libs/contracts/
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/service-kit/package.json libs/service-kit/
COPY --from=build /app/libs/service-kit/dist libs/service-kit/dist
COPY --from=build /app/services/${SERVICE}/package.json services/${SERVICE}/
COPY --from=build /app/services/${SERVICE}/dist services/${SERVICE}/dist
USER node
WORKDIR /app/services/${SERVICE}
CMD ["node", "dist/main.js"]
