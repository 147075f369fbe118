module.exports = { ...require('../../tooling/.mocharc.base.cjs') };
