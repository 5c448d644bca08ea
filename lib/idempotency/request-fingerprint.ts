/**
 * The fingerprint of an Engine.Invoke request, so a reused `Idempotency-Key` can be told apart
 * from a retry: SHA-256 of a canonical JSON form (object keys sorted at every depth).
 */
import { createHash } from 'node:crypto';

/** What makes two invocations "the same request". */
export interface RequestIdentity {
  readonly engineId: string;
  readonly showRefs: boolean;
  /** The parsed JSON body as sent (before schema defaults are applied). */
  readonly body: unknown;
}

/**
 * Serialises a JSON value with object keys sorted by code unit at every depth, so that bodies that
 * differ only in key order or whitespace serialise alike. Array order is kept (it is meaningful).
 * Values JSON cannot carry (`undefined` members, functions) are dropped as `JSON.stringify` does.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((element) => (element === undefined ? 'null' : canonicalJson(element))).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value)
      .sort()
      .flatMap((name) => {
        const member: unknown = Reflect.get(value, name);
        return member === undefined ? [] : [`${JSON.stringify(name)}:${canonicalJson(member)}`];
      });
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The request hash stored with an idempotency key.
 * @returns 64 lowercase hex characters
 */
export function requestFingerprint(request: RequestIdentity): string {
  const canonical = canonicalJson({
    engine_id: request.engineId,
    show_refs: request.showRefs,
    body: request.body,
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
