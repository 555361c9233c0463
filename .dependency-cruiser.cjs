/**
 * The house's import rules (docs/architecture.md: Layout), checked by `npm run lint` (depcruise).
 * Type-only imports count: a circle closed by a type is still a circle.
 */
const SERVICE = '^services/([^/]+)/src/';
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles, type-only imports included: move the type to the module that owns it.',
      from: { path: '^(libs|services|tools)/' },
      to: { circular: true },
    },
    {
      name: 'storage-imports-domain-only',
      severity: 'error',
      comment: "A service's storage implements what the operations need, knowing only the domain's model.",
      from: { path: `${SERVICE}storage/` },
      to: { path: SERVICE, pathNot: [`${SERVICE}(storage|domain)/`] },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'The domain holds the model and pure rules: no storage, views, NATS, HTTP or database code.',
      from: { path: `${SERVICE}domain/` },
      to: {
        path: [SERVICE, '^node_modules/(nats|mongodb|fastify|pdfkit)/'],
        pathNot: [`${SERVICE}domain/`],
      },
    },
    {
      name: 'gateway-no-database',
      severity: 'error',
      comment: 'The gateway holds no database code (it is given no database URL).',
      from: { path: '^services/gateway/' },
      to: { path: ['^node_modules/mongodb/', '^libs/service-kit/(src|dist)/storage'] },
    },
    {
      name: 'kit-storage-on-top',
      severity: 'error',
      comment:
        "The kit's storage stands on its caches, concurrency primitives and process code, never the other way round: only start-up and the storage entry point import it.",
      from: {
        path: '^libs/service-kit/src/',
        pathNot: ['^libs/service-kit/src/(storage/|service/|storage\\.ts$|internal\\.ts$)'],
      },
      to: { path: '^libs/service-kit/src/storage/' },
    },
    {
      name: 'libs-not-services',
      severity: 'error',
      comment: 'Libraries serve the services; they never import one.',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/|\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default', 'types'] },
  },
};
