import { firstTakenPort, listenPortInUse } from "../core/listen-ports.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { Settings } from "../types.js";
import type { Probation } from "./probation.js";

/** The service's settings: read, and replaced as one change on probation. */
export class ProxySettings {
  constructor(
    private readonly store: SqlProxyStore,
    private readonly probation: Probation,
  ) {}

  current(): Settings {
    return this.store.getSettings();
  }

  /**
   * Replaces the settings (already checked against this machine) as one change on probation;
   * answers the probation deadline (null when the change cannot cut the operator off). A port
   * another program holds would be saved and "applied" while the core cannot listen there (it
   * logs the failure and carries on): it is refused, naming the port.
   */
  async replace(settings: Settings): Promise<number | null> {
    const taken = await firstTakenPort(settings, this.store.getSettings());
    if (taken) throw listenPortInUse(taken);
    return this.probation.change(false, () => this.store.saveSettings(settings));
  }
}
