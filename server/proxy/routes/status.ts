import { type Router } from "express";
import type { ProxyContext } from "../context.js";
import { compileRules, TUN_DEVICE } from "../core/compile.js";
import { bundledGeodataDirs, unavailableGeodata } from "../core/geodata.js";
import { coreHomeDir } from "../core/home-dir.js";
import { actualNodeOf } from "../domain/core-names.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { coreProblem } from "../core/errors.js";
import type { ListenProblem } from "../core/listen-problems.js";
import type { Status } from "../../contract/proxy.js";
import { machineInterfaces } from "../system/network.js";

/** Core query deadline in status (spec: 3 seconds). */
export const STATUS_DEADLINE_MS = 3000;
function tunInterfaceExists(deps: ProxyContext): boolean {
  const names = Object.keys(machineInterfaces(deps)());
  return names.some((n) => n === TUN_DEVICE || n === "Meta" || /^utun\d*$/.test(n));
}

export function statusRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();

  router.endpoint("GET /status", async () => {
    const settings = deps.store.getSettings();
    const controllerPort = deps.options.controllerPort ?? 9090;
    let version = "";
    let coreError: { message: string; code: string } | null = null;
    try {
      version = await deps.core.client.version(STATUS_DEADLINE_MS);
    } catch (err) {
      coreError = coreProblem(err, controllerPort);
    }
    const online = coreError === null;
    // Ports the running core could not listen on (another program holds them): the core is
    // up, but takes no connections there.
    const listen = (deps.core as { listenProblems?: () => ListenProblem[] }).listenProblems;
    const listenProblems = online && listen ? listen.call(deps.core) : [];
    let actualNode = "";
    if (online) {
      try {
        actualNode = actualNodeOf(await deps.core.client.proxies(STATUS_DEADLINE_MS));
      } catch {
        actualNode = "";
      }
    }
    // A rollback of an unconfirmed change is said in configError unless the core has worse news.
    const rolledBack = deps.core.configError ? null : deps.probation.lastNotice();
    const body: Status = {
      coreOnline: online,
      coreStarted: deps.core.running(),
      coreInstalled: deps.core.installed,
      version,
      uptimeSeconds: Math.max(0, Math.floor((deps.clock.now() - deps.startedAt) / 1000)),
      nodeCount: deps.store.nodeCount(),
      subscriptionCount: deps.store.listSubscriptions().length,
      settings,
      configError: rolledBack?.message ?? deps.core.configError,
      configErrorCode: rolledBack
        ? rolledBack.code
        : deps.core.configError
          ? (deps.core as { configErrorCode?: string }).configErrorCode || "core.config"
          : "",
      // A settings change waiting for POST /system/confirm: its deadline in Unix seconds.
      probation: deps.probation.status(),
      // The core's controller listens on 127.0.0.1 at this port (--core-controller-port).
      controllerPort,
      listenProblems,
      // Geodata a start needs that is neither in the core's home nor shipped with the app: a
      // start would be refused (POST /system/geodata/update fetches it).
      geodataMissing: deps.core.installed
        ? unavailableGeodata(
            coreHomeDir(deps),
            compileRules(deps.store.listRules()),
            deps.options.geodataDirs ??
              bundledGeodataDirs(deps.coreBin?.() ?? deps.options.coreBin),
          )
        : [],
      actualNode,
      selectedAvailable: actualNode !== "" && actualNode !== "REJECT",
      tunActive: online && settings.tunEnabled && tunInterfaceExists(deps),
      // The service's last warnings and errors, newest first (kept in memory only); `code`
      // and `params` let the console say each in the reader's language.
      recentErrors: deps.log.recent().map((p) => ({
        time: new Date(p.timeMs).toISOString(),
        level: p.level,
        code: p.code,
        params: p.params,
        message: p.message,
        requestId: p.requestId,
      })),
    };
    if (coreError) {
      body.coreError = coreError.message || "The proxy core is offline";
      body.coreErrorCode = coreError.code;
    }
    return body;
  });

  return router;
}
