import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * Which process holds the client end of a loopback TCP connection, found through /proc (Linux
 * only; elsewhere, and when the process has gone, null). The held-ports guard uses it to count
 * only the dials of its own run: on a machine where two runs (or a developer's own proxy
 * dashboard) share loopback, another run's dial is not this run's fault.
 */
export interface SocketOwner {
  pid: number;
  /** The process's command line, shortened, to name it in a message. */
  command: string;
}

function inodeOfLocalPort(port: number): string | null {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let lines: string[];
    try {
      lines = readFileSync(table, "utf8").split("\n").slice(1);
    } catch {
      return null;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // f[1] is the local address "0100007F:1F90", f[9] the socket's inode.
      if (f.length > 9 && f[1]?.endsWith(`:${hex}`) && f[9] !== "0") return f[9] ?? null;
    }
  }
  return null;
}

function ppidOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command in parentheses may hold spaces; the fields after its closing ")" do not.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

export function ownerOfClientPort(port: number): SocketOwner | null {
  if (process.platform !== "linux") return null;
  const inode = inodeOfLocalPort(port);
  if (!inode) return null;
  const wanted = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== wanted) continue;
      } catch {
        continue;
      }
      let command = "";
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      } catch {
        // Gone meanwhile: the pid alone still places it.
      }
      // Temporary folders differ on every start: without them, one culprit is one line.
      command = command.replace(/\/tmp\/[^\s/]+/g, "<tmp>");
      return { pid: Number(pid), command: command.slice(0, 200) };
    }
  }
  return null;
}

/** True when `pid` is `ancestor` or one of its descendants. */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p: number | null = pid, hops = 0; p !== null && p > 1 && hops < 64; hops++) {
    if (p === ancestor) return true;
    p = ppidOf(p);
  }
  return false;
}
