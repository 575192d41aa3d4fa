// The shape of an error code registry, in a module of its own: the services' registries name
// it, and the shared registry (error-codes.ts) names theirs, without a cycle between them.

/** Per code, the names of the values (`params`) its sentence mentions (`?`: sometimes absent). */
export type ErrorRegistry = Readonly<Record<string, readonly string[]>>;
