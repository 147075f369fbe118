// The bench's pure parts are tested next to it, in bench/.
module.exports = { ...require('./.mocharc.base.cjs'), spec: ['src/**/*.test.ts', 'bench/**/*.test.ts'] };
