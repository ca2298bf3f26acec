// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)
"use strict";
const path = require("node:path");

/** Where plugins are looked up. */
const ROOT = path.join(__dirname, "plugins");

/**
 * Loads one plugin by name.
 */
function load(name) {
  return require(path.join(ROOT, name));
}

/** The registry's public face: load every named plugin. */
module.exports = function registry(names) {
  return names.map(load);
};

exports.ROOT = ROOT;

/** Finds a loaded plugin by its name. */
exports.find = (plugins, name) => plugins.find((plugin) => plugin.name === name);

module.exports.Registry = class Registry {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }
};

exports.defaults = { retries: 3, timeoutMs: 1000, cacheDir: ".cache", verbose: false };
exports["not-an-identifier"] = 1;
process.exitCode = 0;
