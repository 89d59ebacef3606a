// Raw JSON-RPC to a local anvil, for test-only methods (evm_setAutomine, evm_mine, …) viem does not wrap.

/** A call anvil has not answered in this long names itself, instead of running into the test's timeout unnamed. */
const ANSWER_WITHIN_MS = 20_000;

export async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') throw new Error(`${method} to ${url}: no answer within ${ANSWER_WITHIN_MS / 1000} s`, { cause: err });
    throw err;
  }
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
