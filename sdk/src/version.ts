// The package's version, sent in User-Agent. test/sdk/package.test.ts holds it equal to sdk/package.json's.
export const SDK_VERSION = '1.0.0'
