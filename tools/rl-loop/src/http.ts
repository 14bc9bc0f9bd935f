export interface Auth {
  key?: string;
  token?: string;
}

/** A JSON call (plain-text answers come back as text) that throws on a non-2xx answer (with its body); 503 (a busy model) and dropped sockets are retried. */
export async function call<T = unknown>(
  base: string,
  method: string,
  route: string,
  options: Auth & { body?: unknown; retries?: number; timeoutMs?: number } = {},
): Promise<T> {
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt += 1) {
    let res: Response;
    try {
      res = await fetch(`${base}${route}`, {
        signal: AbortSignal.timeout(options.timeoutMs ?? 600_000),
        method,
        headers: {
          'content-type': 'application/json',
          ...(options.key && { 'x-api-key': options.key }),
          ...(options.token && { authorization: `Bearer ${options.token}` }),
        },
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      });
    } catch (error) {
      // A kept-alive socket the server closed as we reused it ("other side closed"): the request never ran.
      if (attempt < retries && !(error instanceof DOMException)) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        continue;
      }
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new Error(`${method} ${base}${route} failed (${String(error)}${cause})`);
    }
    const text = await res.text();
    // vLLM's LoRA routes answer plain text.
    if (res.ok)
      return (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T;
    if (res.status === 503 && attempt < retries) {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      continue;
    }
    throw new Error(`${method} ${route} answered ${res.status}: ${text.slice(0, 500)}`);
  }
}
