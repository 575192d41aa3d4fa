import type { MouseEvent } from "react";
import { api } from "../api.js";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { navigate } from "../route.js";
import type { RecipientView as PickupView } from "../../../server/contract/parcel-views.js";
import { Notice } from "../ui/notice.js";
import { normalizeInput } from "./code.js";
import { CodeForm, PasswordForm, ProblemText } from "./forms.js";
import { rememberGrant } from "./grant.js";
import { pickupDict } from "./i18n.js";
import { FilesView } from "./files-view.js";
import {
  refreshView,
  resolveCode,
  useOpenParcel,
  usePickupState,
  type Controls,
} from "./pickup-state.js";
import "./pickup.css";
import { MINUTE_MS } from "../../../server/contract/time-units.js";

/** The pickup cookie lasts 10 minutes; renew it a little before that. */
const GRANT_MS = 9 * MINUTE_MS;

/** Whether the authorisation is about to lapse and can be renewed with the code in memory. */
function lapsing(c: Controls): boolean {
  return Date.now() - c.grantedAt.current >= GRANT_MS && c.code.current !== "";
}

/** Notes that one download starts here; the last one shows the parcel as done at once. */
function usedOne(c: Controls, last: boolean): void {
  if (!last) return;
  c.tookLast.current = true;
  // After the click has run its course: a link taken off the page would not download.
  c.timers.current.push(
    setTimeout(() => {
      c.setFinished(true);
      c.setEnded(true);
    }, 0),
  );
}

function afterDownload(c: Controls, last: boolean): void {
  c.setNotice(last ? "lastDone" : "started");
  usedOne(c, last);
  // The download is counted when it starts: show the new count shortly after.
  c.timers.current.push(setTimeout(() => void refreshView(c), 1000));
  c.timers.current.push(setTimeout(() => void refreshView(c), 4000));
}

function onDownload(c: Controls, view: PickupView, e: MouseEvent<HTMLAnchorElement>): void {
  const link = e.currentTarget;
  const last = view.downloads_left <= 1;
  if (!lapsing(c)) {
    afterDownload(c, last);
    return;
  }
  // The authorisation is about to lapse: renew it first, then start the same download.
  e.preventDefault();
  void resolveCode(c, c.code.current, c.password.current, true).then((ok) => {
    if (ok) {
      afterDownload(c, last);
      link.click();
    }
  });
}

/**
 * Reads a text file to show it on the page: a real download of that file (it counts one),
 * renewing a lapsed authorisation first like a download link does.
 */
async function readText(c: Controls, view: PickupView, fileId: string): Promise<string> {
  if (lapsing(c)) {
    if (!(await resolveCode(c, c.code.current, c.password.current, true)))
      throw new Error("lapsed");
  }
  const last = view.downloads_left <= 1;
  const res = await api.raw("GET /pickup/files/:file/download", { params: { file: fileId } });
  const bytes = await res.arrayBuffer();
  if (last) {
    c.setNotice("lastDone");
    usedOne(c, true);
  }
  c.timers.current.push(setTimeout(() => void refreshView(c), 300));
  return new TextDecoder("utf-8").decode(bytes);
}

/** Another parcel: everything of this one is forgotten and the code form shows. */
function other(c: Controls, rest: string): void {
  rememberGrant(false);
  c.code.current = "";
  c.password.current = "";
  c.setEnded(false);
  c.setFinished(false);
  c.tookLast.current = false;
  c.setView(null);
  c.setProblem(null);
  c.setNotice(null);
  c.setPhase("code");
  if (rest) navigate("pickup");
}

/**
 * `#/pickup` and `#/pickup/<code>`: code (and password when the parcel has one), then the
 * files. Downloads are plain links so the browser streams them to disk with its own progress.
 */
export default function PickupScreen({ rest }: AreaProps) {
  const t = useT(pickupDict);
  const { phase, view, problem, ended, finished, notice, busy, blockedUntil, controls } =
    usePickupState();
  useOpenParcel(rest, controls);
  return (
    <div className={`pickup-screen pickup-${phase}`}>
      <h1>{t("heading")}</h1>
      {phase === "code" ? <p className="muted">{t("lead")}</p> : null}
      <div aria-live="polite">
        <ProblemText problem={problem} counted={phase === "code" || phase === "password"} />
      </div>
      {phase === "checking" ? (
        <p className="muted" role="status">
          {t("opening")}
        </p>
      ) : phase === "code" ? (
        <CodeForm
          initial={normalizeInput(rest)}
          busy={busy}
          blockedUntil={blockedUntil}
          onSubmit={(plain) => void resolveCode(controls, plain, "")}
        />
      ) : phase === "password" ? (
        <PasswordForm
          busy={busy}
          blockedUntil={blockedUntil}
          onSubmit={(pass) => void resolveCode(controls, controls.code.current, pass)}
          onOther={() => other(controls, rest)}
        />
      ) : view ? (
        <>
          {notice ? <Notice kind="ok">{t(notice)}</Notice> : null}
          <FilesView
            view={view}
            ended={ended}
            finished={finished}
            onDownload={(e) => onDownload(controls, view, e)}
            onReadText={(fileId) => readText(controls, view, fileId)}
            onOther={() => other(controls, rest)}
          />
        </>
      ) : null}
    </div>
  );
}
