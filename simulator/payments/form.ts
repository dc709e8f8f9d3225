// Stripe's request bodies: application/x-www-form-urlencoded with bracketed
// keys (`line_items[0][price_data][currency]=usd`, `metadata[ownerId]=…`), as
// stripe-node and curl send them, read into nested objects and arrays.

export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

export function parseStripeForm(body: string): FormObject {
  const root: FormObject = {};
  for (const pair of body.split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    const rawKey = at === -1 ? pair : pair.slice(0, at);
    const rawValue = at === -1 ? "" : pair.slice(at + 1);
    const key = decode(rawKey);
    const value = decode(rawValue);
    const path = keyPath(key);
    if (!path) continue;
    assign(root, path, value);
  }
  return root;
}

const decode = (text: string) => {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
};

/** `a[b][0]` → ["a", "b", "0"]; null for a key that is not of that shape. */
function keyPath(key: string): string[] | null {
  const match = key.match(/^([^[\]]+)((?:\[[^[\]]*\])*)$/);
  if (!match) return null;
  const rest = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!);
  return [match[1]!, ...rest];
}

function assign(target: FormObject | FormValue[], path: string[], value: string): void {
  const [head, ...rest] = path;
  const index = head === "" && Array.isArray(target) ? target.length : head!;
  const slot = target as Record<string, FormValue>;
  if (rest.length === 0) {
    slot[index] = value;
    return;
  }
  const nextIsIndex = /^\d*$/.test(rest[0]!);
  let child = slot[index];
  if (child === undefined || typeof child === "string") {
    child = nextIsIndex ? [] : {};
    slot[index] = child;
  }
  assign(child as FormObject | FormValue[], rest, value);
}

/** A string field, or undefined. */
export const text = (value: FormValue | undefined): string | undefined => (typeof value === "string" ? value : undefined);

/** A nested object field, or an empty one. */
export const object = (value: FormValue | undefined): FormObject => (value && typeof value === "object" && !Array.isArray(value) ? value : {});

/** An array field (an object with numeric keys counts), or an empty one. */
export const list = (value: FormValue | undefined): FormValue[] => {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined);
  if (value && typeof value === "object") return Object.keys(value).sort((a, b) => Number(a) - Number(b)).map((k) => value[k]!);
  return [];
};
