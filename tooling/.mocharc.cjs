module.exports = { ...require('./.mocharc.base.cjs') };
