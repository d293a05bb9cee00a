// Whether a process still runs, for locks and temp files a crashed process may have left behind.

/** True while `pid` names a live process (EPERM: it exists but belongs to another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
