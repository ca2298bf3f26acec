// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)
import { EventEmitter } from "node:events";
import defaultsDeep from "./defaults.js";
export { formatPrice } from "./format.js";

/**
 * Default page size of a listing.
 * Kept small on purpose.
 */
export const PAGE_SIZE = 20;
const cache = new Map(), misses = [];

/** Keeps items and their counts. */
export class Inventory extends EventEmitter {
  #items = new Map();
  static instances = 0;

  constructor(options) {
    super();
    this.options = defaultsDeep(options, { strict: true });
  }

  /** Adds `count` of `sku`; emits "change". */
  add(sku, count = 1) {
    this.#items.set(sku, (this.#items.get(sku) ?? 0) + count);
    this.emit("change", sku);
  }

  get size() {
    return this.#items.size;
  }

  *entries() {
    yield* this.#items;
  }
}

export function* paginate(items, size = PAGE_SIZE) {
  for (let i = 0; i < items.length; i += size) {
    yield items.slice(i, i + size);
  }
}

export const total = (inventory) => [...inventory.entries()].reduce((sum, [, n]) => sum + n, 0);

async function load(url) {
  const response = await fetch(url);
  return response.json();
}

export default load;
