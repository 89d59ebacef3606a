/**
 * A response body already serialised to JSON, for reads that answer the same bytes to many callers (a leaderboard
 * page, docs/leaderboard.md "Reads"): the REST adapter sends `text` as it is, without serialising the value again;
 * MCP, which needs the value, parses it. The type parameter is the value's type, so a handler returning one is
 * checked against its capability's output schema like any other.
 */
export class RenderedJson<T> {
  /** The value the text encodes, for type checking only. */
  declare readonly valueType: T;

  private constructor(readonly text: string) {}

  static of<T>(value: T): RenderedJson<T> {
    return new RenderedJson<T>(JSON.stringify(value));
  }

  value(): T {
    return JSON.parse(this.text) as T;
  }
}

/** The value of a body that may be pre-rendered. */
export const plainBody = (body: unknown): unknown => (body instanceof RenderedJson ? body.value() : body);
