/**
 * Runs `task` one at a time: a call while it runs queues exactly one more run (however many calls come), so the
 * last run always starts after the last call. Each call's promise settles once a run that began after it is done.
 */
export function coalesce(task: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const run = (): Promise<void> => {
    if (running === null) {
      running = task()
        .catch(() => undefined)
        .finally(() => {
          running = null;
        });
      return running;
    }
    next ??= running.then(() => {
      next = null;
      return run();
    });
    return next;
  };
  return run;
}
