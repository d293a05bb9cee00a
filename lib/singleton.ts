// One instance per process. Next may bundle a module once per route, so module scope alone would make several.
export function processSingleton<T>(name: string, create: () => T): T {
  const holder = globalThis as Record<symbol, unknown>;
  const key = Symbol.for(`darkroom.${name}`);
  if (!(key in holder)) holder[key] = create();
  return holder[key] as T;
}
