// Identifiers as the API takes them.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its usual text form, either case: what an id path or cursor parameter must be before it reaches a uuid column. */
export const isUuid = (text: string): boolean => UUID.test(text);
