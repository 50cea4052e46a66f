import { SUPPORTED_NODE_MAJOR, unsupportedRuntimeReason } from './supported-runtime';

describe('unsupportedRuntimeReason', () => {
  it('accepts the supported line and later ones', () => {
    expect(unsupportedRuntimeReason('24.11.1')).toBeUndefined();
    expect(unsupportedRuntimeReason('26.0.0')).toBeUndefined();
  });

  it('names the needed version and the one found for an older runtime', () => {
    const reason = unsupportedRuntimeReason('20.20.2');
    expect(reason).toContain(`Node.js ${SUPPORTED_NODE_MAJOR} or later`);
    expect(reason).toContain('this is Node.js 20.20.2');
  });

  it('is what the tests themselves run on', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(SUPPORTED_NODE_MAJOR);
  });
});
