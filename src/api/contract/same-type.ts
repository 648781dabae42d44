// `true` only when A and B are the same type: a schema and the module type it describes are held equal with it, so
// a field added to one and not the other fails to compile.
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
