/** A page of a list, as every list endpoint returns it. */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/**
 * What a list method returns: await it for the first page, or iterate it with `for await` for
 * every object of the list, pages fetched as you go (newest first, as the API lists them). Stop
 * early with `break`: no page beyond is fetched.
 */
export class ListPromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;

  constructor(private readonly fetchPage: (startingAfter: string | undefined) => Promise<Page<T>>) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }

  then<R1 = Page<T>, R2 = never>(
    onFulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page = await this.firstPage();
    for (;;) {
      yield* page.data;
      const last = page.data.at(-1) as { id?: unknown } | undefined;
      // Lists without ids (an account's balances) are one page.
      if (!page.has_more || typeof last?.id !== 'string') return;
      page = await this.fetchPage(last.id);
    }
  }

  /** Every object of the list, in an array (mind the size of what you ask for). */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
