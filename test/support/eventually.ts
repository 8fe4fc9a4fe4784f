/** Polls `check` until it returns a value other than undefined/false; rejects after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls `probe` until `accept` likes its value, and returns that value. */
export async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  let last: T | undefined;
  try {
    return await eventually(async () => {
      last = await probe();
      return accept(last) ? { value: last } : undefined;
    }, timeoutMs).then((box) => box.value);
  } catch {
    throw new Error(`condition not met within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
  }
}
