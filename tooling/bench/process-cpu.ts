/**
 * CPU time of the processes of a bench run, from Linux's /proc (user + system, all threads), so a
 * run can say where its cores went — the server, its database's backends, the peers, the bench
 * itself — whatever else loads the machine. Elsewhere (no /proc) every figure is undefined.
 */
import { readFile } from 'node:fs/promises';

// Linux reports /proc times in clock ticks of USER_HZ, 100 on every architecture Node supports.
const TICKS_PER_SECOND = 100;

/** CPU seconds `pid` has used so far (its threads included), or undefined when it cannot be read. */
export async function processCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the name.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / TICKS_PER_SECOND;
}

/** CPU seconds of several processes at one moment, by pid (unreadable ones left out). */
export async function cpuSnapshot(pids: Iterable<number>): Promise<Map<number, number>> {
  const snapshot = new Map<number, number>();
  await Promise.all(
    [...pids].map(async (pid) => {
      const seconds = await processCpuSeconds(pid);
      if (seconds !== undefined) snapshot.set(pid, seconds);
    }),
  );
  return snapshot;
}

/**
 * CPU seconds a set of processes used between two snapshots: a process first seen in `after` counts
 * from zero (it started in between); one gone from `after` is left out (its last share is unknown).
 */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}
