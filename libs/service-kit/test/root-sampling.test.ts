import { rootSamplingRatio } from '../src/process/root-sampling';

it('reads the share of new traces from a parent-based sampler, as the SDK reads it', () => {
  expect(rootSamplingRatio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toBe(
    0.1,
  );
  expect(
    rootSamplingRatio({ OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio', OTEL_TRACES_SAMPLER_ARG: ' 0.25 ' }),
  ).toBe(0.25);
  expect(rootSamplingRatio({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toBe(1);
  expect(rootSamplingRatio({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(0);
  // A missing or invalid ratio is 1, as the SDK takes it.
  for (const arg of [undefined, '', 'often', '-0.1', '1.5'])
    expect(rootSamplingRatio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: arg })).toBe(
      1,
    );
});

it('leaves every other sampler to the SDK: a caller decision it would ignore stays ignored', () => {
  for (const sampler of ['traceidratio', 'always_on', 'always_off', 'jaeger_remote', undefined])
    expect(rootSamplingRatio({ OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: '0.1' })).toBeNull();
});
