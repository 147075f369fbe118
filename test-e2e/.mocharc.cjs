// End-to-end: real service processes; one file at a time is enough here.
module.exports = { ...require('../tooling/.mocharc.base.cjs'), parallel: false, timeout: 120000 };
