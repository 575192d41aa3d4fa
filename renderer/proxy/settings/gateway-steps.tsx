import { useT, type Key } from "../i18n.js";
import type { NetworkReport } from "../../../server/contract/proxy.js";

const STEPS: Record<string, Key> = {
  ip_forward: "set.guideForward",
  tun_device: "set.guideTun",
  geodata: "set.guideGeodata",
  core_missing: "set.guideCore",
};

/**
 * What this machine still needs to act as a gateway, in the reader's language: the service
 * names the steps by code; a service that sends no codes keeps its own sentence.
 */
export function GatewaySteps({ net }: { net: NetworkReport }) {
  const t = useT();
  const codes = net.guidanceCodes;
  if (!codes) return net.guidance ? <p className="hint-block">{net.guidance}</p> : null;
  const steps = codes.filter((c) => c in STEPS);
  return (
    <div className="hint-block" data-testid="gateway-steps">
      {steps.length > 0 ? (
        <>
          <p>{t("set.guideLead")}</p>
          <ul>
            {steps.map((c) => (
              <li key={c}>{t(STEPS[c])}</li>
            ))}
          </ul>
        </>
      ) : null}
      {codes.includes("no_dhcp") ? <p>{t("set.guideNoDhcp")}</p> : null}
    </div>
  );
}
