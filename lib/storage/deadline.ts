// One storage call with a deadline: the call gets an abort signal, and the deadline is raced rather than only
// signalled, since SDK clients may sleep between retries without watching the signal.
import { StorageUnavailable } from "@/lib/errors";

/** Runs `run`, giving up at `ms` with StorageUnavailable; other errors pass through `mapError`. */
export async function withDeadline<T>(
  ms: number,
  run: (signal: AbortSignal) => Promise<T>,
  mapError: (err: unknown) => unknown,
): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new StorageUnavailable(`image storage did not answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([run(abort.signal), deadline]);
  } catch (err) {
    throw err instanceof StorageUnavailable ? err : mapError(err);
  } finally {
    clearTimeout(timer);
  }
}
