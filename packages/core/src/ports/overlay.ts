/**
 * `port` with `overrides` in place of some of its methods; every other member is read from the port itself, by
 * name, when it is used (methods bound to the port). Not a spread: a port that is a proxy (or a class instance) has
 * no own enumerable methods to spread, and a spread copy would lose them.
 *
 * @example
 * const tracked = overlay(port, { async create(s) { created.push(s.id); return port.create(s); } });
 */
export function overlay<P extends object>(port: P, overrides: Partial<P>): P {
  return new Proxy(port, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof P];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
