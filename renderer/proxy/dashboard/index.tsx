import { coreErrorText } from "../core/core-error-text.js";
import { useCallback, useEffect, useRef, useState } from "react";
import { useActionState } from "../../shared/ui/action.js";
import { CoreOutput, coreFailure, coreOutputOf, statusFailure } from "../core/core-failure.js";
import { Status } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { formatDuration } from "../parts/format.js";
import { heldPorts, ListenProblems } from "../core/listen-problems.js";
import { builtInNodeWord } from "./node-words.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { TrafficCard } from "./traffic-card.js";
import { RecentProblemsCard } from "./recent-problems.js";
import { TopDevicesCard } from "../devices/top-devices.js";
import { NoCoreInstall } from "../core/core-install.js";
import { GeodataMissing, StaleSubscriptions } from "../core/geodata.js";
import type { Subscription } from "../../../server/contract/proxy.js";
import { Alert, Card, Loading, useLoad, type Loaded } from "../parts/ui.js";

/** Node ids are `<subscription>/<provider>/<name>`; built-ins (REJECT, DIRECT) are shown as they are. */
export function nodeName(id: string): string {
  const first = id.indexOf("/");
  const second = first < 0 ? -1 : id.indexOf("/", first + 1);
  return second > 0 ? id.slice(second + 1) : id;
}

/** The subscription part of a node id ("" for built-ins). */
export function nodeSubscriptionId(id: string): string {
  const first = id.indexOf("/");
  return first > 0 && id.indexOf("/", first + 1) > 0 ? id.slice(0, first) : "";
}

/**
 * Start, stop and restart. `online` (when the caller knows it) disables Start while the core
 * runs: starting a running core would do nothing a person could see. A core that is stopped
 * (neither answering nor meant to run) cannot be stopped or restarted: only Start is offered.
 */
export function ServiceButtons({
  onDone,
  online,
  started,
  installed,
  said = [],
}: {
  onDone?: () => void;
  online?: boolean;
  /** Whether a core program is installed (`coreInstalled` of /status): without one, nothing to run. */
  installed?: boolean;
  /** Whether the service means the core to run (`coreStarted` of /status). */
  started?: boolean;
  /** Sentences already shown above the buttons: a failure saying the same is not repeated. */
  said?: string[];
}) {
  const t = useT();
  const action = useActionState(useCallback((err: unknown) => coreFailure(err, t).text, [t]));
  // The core's own words of the last failure, shown folded under the sentence.
  const [output, setOutput] = useState("");
  const control = async (name: "start" | "stop" | "restart") => {
    setOutput("");
    // The action's name, worded when shown (so it follows a change of language).
    await action.run(
      () =>
        api("POST /system/service", { body: { action: name } }).catch((err: unknown) => {
          setOutput(coreOutputOf(err));
          throw err;
        }),
      name,
    );
    onDone?.();
  };
  const repeated = said.includes(action.error);
  const missing = installed === false;
  const stopped = missing || (online === false && started === false);
  const notRunning = missing
    ? t("service.installFirst")
    : stopped
      ? t("service.notRunning")
      : undefined;
  return (
    <div>
      <div className="button-row" role="group" aria-label={t("service.controls")}>
        <button
          type="button"
          onClick={() => void control("start")}
          disabled={action.busy || online === true || missing}
          title={online === true ? t("service.alreadyRunning") : notRunning}
        >
          {t("service.start")}
        </button>
        <button
          type="button"
          onClick={() => void control("stop")}
          disabled={action.busy || stopped}
          title={notRunning}
        >
          {t("service.stop")}
        </button>
        <button
          type="button"
          onClick={() => void control("restart")}
          disabled={action.busy || stopped}
          title={notRunning}
        >
          {t("service.restart")}
        </button>
      </div>
      {missing ? (
        <p className="muted" data-testid="install-first">
          {t("service.installFirst")}
        </p>
      ) : null}
      {action.busy ? <p role="status">{t("common.working")}</p> : null}
      <Alert text={repeated ? "" : action.error} />
      {action.error && !repeated ? <CoreOutput text={output} t={t} /> : null}
      <Alert kind="ok" text={action.done ? t(`service.${action.done}Done` as Key) : ""} />
    </div>
  );
}

function StatusCard({
  status,
  subscriptions,
}: {
  status: Status;
  subscriptions: Subscription[] | null;
}) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const online = status.coreOnline;
  // Running without one of its ports is not "online": amber, said in full below the facts.
  const held = heldPorts(status).length > 0;
  // Not running because nobody started it (or it was stopped) is a state, not a fault.
  const stopped = !online && !status.coreStarted;
  // The node's subscription by name; its id means nothing to a person.
  const subId = nodeSubscriptionId(status.actualNode);
  const subName = subId ? (subscriptions?.find((x) => x.id === subId)?.name ?? "") : "";
  // REJECT (no node to use) and DIRECT are said in words, without an "unavailable" badge;
  // with the proxy off no node is used, whatever the proxy group points at.
  const proxyOn = status.settings.proxyEnabled;
  const builtIn = proxyOn ? builtInNodeWord(status.actualNode, t) : t("dash.nodeProxyOff");
  return (
    <dl className="facts">
      <div>
        <dt>{t("dash.core")}</dt>
        <dd>
          <span
            className={`badge ${held ? "badge-fair" : online ? "badge-good" : stopped ? "" : "badge-bad"}`}
            data-testid="core-state"
          >
            {held
              ? t("dash.onlinePortTaken")
              : online
                ? t("dash.online")
                : stopped
                  ? t("dash.stopped")
                  : t("dash.offline")}
          </span>
          {!status.coreInstalled ? (
            // Its own spacing: a space before "(" in English, none before "（" in Chinese.
            <span className="muted note">{t("dash.notInstalled")}</span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>{t("dash.version")}</dt>
        <dd>{status.version || "—"}</dd>
      </div>
      <div>
        <dt>{t("dash.uptime")}</dt>
        <dd>{formatDuration(status.uptimeSeconds, lang)}</dd>
      </div>
      <div>
        <dt>{t("dash.actualNode")}</dt>
        <dd data-testid="actual-node">
          <span>{builtIn ?? (nodeName(status.actualNode) || t("dash.unknown"))}</span>
          {subName && proxyOn ? <span className="muted note"> · {subName}</span> : null}
          {status.actualNode && !builtIn && !status.selectedAvailable ? (
            <span className="badge badge-bad"> {t("dash.unavailable")}</span>
          ) : null}
        </dd>
      </div>
      <ModeAndCounts status={status} />
    </dl>
  );
}

/** The proxy's mode (the node choice only while it is on) and the counts, with the way to add a subscription. */
function ModeAndCounts({ status }: { status: Status }) {
  const t = useT();
  const proxyOn = status.settings.proxyEnabled;
  return (
    <>
      <div>
        <dt>{t("dash.mode")}</dt>
        <dd>
          {/* The node choice matters only while the proxy is on. */}
          {proxyOn
            ? `${t("dash.proxyOn")} · ${status.settings.selectionMode === "manual" ? t("nodes.manual") : t("nodes.auto")}`
            : t("dash.proxyOff")}
          {status.settings.tunEnabled
            ? ` · TUN ${status.tunActive ? t("dash.active") : t("dash.inactive")}`
            : ""}
        </dd>
      </div>
      <div>
        <dt>{t("dash.counts")}</dt>
        <dd>
          {t("dash.countsValue", { subs: status.subscriptionCount, nodes: status.nodeCount })}
          {status.subscriptionCount === 0 ? (
            <>
              {" "}
              <a href="#/subscriptions" className="note">
                {t("dash.addSubscription")}
              </a>
            </>
          ) : null}
        </dd>
      </div>
    </>
  );
}

/**
 * The subscriptions, for the name of the node in use. A node of a subscription added since the
 * page opened: the names are fetched again, once per id.
 */
function useSubscriptionNames(actualNode: string) {
  const subscriptions = useLoad(() => api("GET /subscriptions"));
  const askedFor = useRef("");
  const usedSub = nodeSubscriptionId(actualNode);
  useEffect(() => {
    if (!usedSub || !subscriptions.data || askedFor.current === usedSub) return;
    if (subscriptions.data.some((x) => x.id === usedSub)) return;
    askedFor.current = usedSub;
    void subscriptions.reload();
  }, [usedSub, subscriptions]);
  return subscriptions;
}

/**
 * The core's problems as the card says them. A core nobody started is said neutrally; only a
 * core meant to run that does not answer (or a port another program holds) is a problem in
 * red. With no core installed, the install panel says what to do; "start it below" would not.
 */
function coreProblems(s: Status | null, t: Translate) {
  const stopped = s ? !s.coreOnline && !s.coreStarted && s.coreInstalled : false;
  const quietlyStopped =
    stopped && (s?.coreErrorCode === "core.unreachable" || s?.coreErrorCode === "core.timeout");
  const coreText =
    s?.coreError && s.coreInstalled && !quietlyStopped
      ? coreErrorText(s.coreError, t, s.coreErrorCode, s.controllerPort)
      : "";
  // The same problem twice (a start refused for the port the status names) is said once.
  const config = statusFailure(s, t);
  return { stopped, coreText, configText: config.text, configOutput: config.output };
}

function CoreCard(props: { status: Loaded<Status>; subscriptions: Subscription[] | null }) {
  const t = useT();
  const { status, subscriptions } = props;
  const s = status.data;
  const { stopped, coreText, configText, configOutput } = coreProblems(s, t);
  const reload = () => void status.reload();
  return (
    <Card title={t("dash.coreTitle")}>
      {s ? (
        <StatusCard status={s} subscriptions={subscriptions} />
      ) : status.loading ? (
        <Loading />
      ) : null}
      <NoCoreInstall installed={s?.coreInstalled} onDone={reload} />
      <ListenProblems status={s ?? null} t={t} />
      <GeodataMissing status={s ?? null} t={t} />
      <StaleSubscriptions subs={subscriptions} t={t} />
      {stopped && !configText ? (
        <p className="muted" data-testid="core-stopped">
          {t("dash.stoppedHint")}
        </p>
      ) : null}
      <Alert text={status.error} />
      <Alert text={coreText} />
      <Alert text={configText} />
      <CoreOutput text={configOutput} t={t} />
      <ServiceButtons
        onDone={reload}
        online={s?.coreOnline}
        started={s?.coreStarted}
        installed={s?.coreInstalled}
        said={[coreText, configText]}
      />
    </Card>
  );
}

export function DashboardScreen() {
  const status = useLoad(() => api("GET /status"), 5000);
  const subscriptions = useSubscriptionNames(status.data?.actualNode ?? "");
  const s = status.data;
  return (
    <div className="grid">
      <CoreCard status={status} subscriptions={subscriptions.data} />
      <TrafficCard />
      <TopDevicesCard />
      {s ? <RecentProblemsCard items={s.recentErrors ?? []} /> : null}
    </div>
  );
}
