/**
 * sorted-btree (a B+ tree) loaded from ESM: the package is CommonJS with `exports.default = BTree`, so under Node's
 * ESM interop the class is `default.default`.
 */
import pkg from "sorted-btree";

type Ctor = typeof pkg.default;
const loaded = pkg as unknown as { default?: Ctor } & Ctor;
/** The sorted-btree class (see the module comment). */
export const BTree: Ctor = typeof loaded === "function" ? (loaded as Ctor) : (loaded as { default: Ctor }).default;
export type BTree<K, V> = InstanceType<typeof pkg.default<K, V>>;
