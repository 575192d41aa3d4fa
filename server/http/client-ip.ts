import type { Request } from "express";

/** An address as people write it: an IPv4 client on a dual-stack socket without `::ffff:`. */
export function plainIp(ip: string | undefined): string {
  if (!ip) return "";
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}

/**
 * The address of the device that sent the request: the socket's peer, never a header a client
 * could write (both services answer the LAN directly, with no proxy in front to trust).
 */
export function clientIp(req: Request): string {
  return plainIp(req.socket.remoteAddress);
}
