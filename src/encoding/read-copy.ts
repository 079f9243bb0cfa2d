// What a function reads of a JSON object: the function runs once on a recording view of the
// object, and a copy keeps only the values it looked at (with the same shape: objects, and arrays
// of the same length). Run again on that copy, the function does exactly what it did on the whole
// object — provided what it reads depends on the object alone (a Table printer reads the same
// fields whatever the time; only the cells it makes of them change). The copy is a small part of
// the object: it is what a Table row keeps between requests instead of the whole parsed object.
import type { JsonObject } from '../json.js';

type Container = Record<string, unknown> | unknown[];

function isContainer(v: unknown): v is Container {
  return typeof v === 'object' && v !== null;
}

function refuseChange(): never {
  throw new TypeError('the object is read-only here: it is recorded for reuse');
}

export function readCopy<T>(obj: JsonObject, read: (view: JsonObject) => T): { copy: JsonObject; result: T } {
  const copies = new Map<Container, Container>();
  const views = new Map<Container, Container>();

  const copyOf = (original: Container): Container => {
    let copy = copies.get(original);
    if (!copy) {
      copy = Array.isArray(original) ? new Array<unknown>(original.length) : {};
      copies.set(original, copy);
    }
    return copy;
  };

  /** Records original[key] in the copy; answers what the reader sees (a view for objects and arrays). */
  const keep = (original: Container, key: string): unknown => {
    const value = (original as Record<string, unknown>)[key];
    const copy = copyOf(original) as Record<string, unknown>;
    if (!isContainer(value)) {
      copy[key] = value;
      return value;
    }
    copy[key] = copyOf(value);
    return viewOf(value);
  };

  const own = (original: Container, key: string | symbol): key is string => typeof key === 'string' && Object.hasOwn(original, key);

  const handler: ProxyHandler<Container> = {
    get: (original, key, receiver) => (own(original, key) ? keep(original, key) : Reflect.get(original, key, receiver)),
    has: (original, key) => {
      if (own(original, key)) keep(original, key);
      return Reflect.has(original, key);
    },
    ownKeys: (original) => {
      for (const key of Object.keys(original)) keep(original, key);
      return Reflect.ownKeys(original);
    },
    getOwnPropertyDescriptor: (original, key) => {
      if (own(original, key)) keep(original, key);
      return Reflect.getOwnPropertyDescriptor(original, key);
    },
    set: refuseChange,
    defineProperty: refuseChange,
    deleteProperty: refuseChange,
    setPrototypeOf: refuseChange,
  };

  const viewOf = (original: Container): Container => {
    let view = views.get(original);
    if (!view) {
      view = new Proxy(original, handler);
      views.set(original, view);
    }
    return view;
  };

  const result = read(viewOf(obj) as JsonObject);
  return { copy: copyOf(obj) as JsonObject, result };
}
