import { useRef, useState } from "react";
import { api } from "../api.js";
import { formatDateTime } from "../parts/format.js";
import { useT, type Lang, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { ConfirmBox } from "../parts/confirm-box.js";
import { Alert, Card, useAction } from "../parts/ui.js";
import { checkBackup, type BackupCheck } from "./backup-check.js";

function fileName(disposition: string | null): string {
  const m = disposition?.match(/filename="?([^";]+)"?/i);
  return m ? m[1] : "gatehouse-proxy-backup.json";
}

/** A chosen file that is a backup, waiting for the person to confirm. */
type Pending = { file: string } & Extract<BackupCheck, { kind: "backup" }>;

/** Why a chosen file is not restored, said before anything is asked. */
function refusal(file: string, check: BackupCheck, t: Translate): string {
  if (check.kind === "not_json") return t("sys.restoreNotJsonFile", { file });
  if (check.kind === "other_version") return t("sys.restoreOtherVersion", { file });
  return t("sys.restoreNotBackupFile", { file });
}

/** The question before a restore: the file, when it was made, and what it holds. */
function question(p: Pending, t: Translate, lang: Lang): string {
  const what = {
    file: p.file,
    subs: t("sys.countSubs", { n: p.subscriptions }),
    rules: t("sys.countRules", { n: p.rules }),
  };
  return p.exportedAt
    ? t("sys.restoreAskWhat", { ...what, date: formatDateTime(p.exportedAt, lang) })
    : t("sys.restoreAskNoDate", what);
}

/** Saves the service's backup as a file, under the name the service gives it. */
async function downloadBackup() {
  const res = await api.raw("GET /system/backup");
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName(res.headers.get("Content-Disposition"));
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Asks before a restore replaces everything. */
function RestoreAsk(props: { pending: Pending; onYes(): void; onNo(): void }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  return (
    <ConfirmBox
      label={t("sys.restoreAskLabel")}
      question={question(props.pending, t, lang)}
      yes={t("sys.restoreYes")}
      onYes={props.onYes}
      onNo={props.onNo}
    />
  );
}

/**
 * Download a backup, or restore one: the chosen file is read here first (JSON, the backup's
 * shape from the contract, its version), so a photo or another program's file is refused at
 * once, and only a backup is offered, named by its date and what it holds.
 */
export function BackupCard() {
  const t = useT();
  const download = useAction();
  const restore = useAction();
  const input = useRef<HTMLInputElement>(null);
  // A chosen backup waits here until the person confirms that it replaces everything.
  const [pending, setPending] = useState<Pending | null>(null);
  // A chosen file that is no backup: said at once (worded when shown).
  const [refused, setRefused] = useState<{ file: string; check: BackupCheck } | null>(null);
  const [cancelled, setCancelled] = useState(false);
  // One notice at a time: an earlier one would sit beside the answer to this action.
  const forget = () => {
    download.clear();
    restore.clear();
    setCancelled(false);
    setPending(null);
    setRefused(null);
  };
  const choose = async (file: File) => {
    forget();
    // Emptied at once, so the same file chosen again is offered again.
    if (input.current) input.current.value = "";
    const check = checkBackup(await file.text());
    if (check.kind === "backup") setPending({ file: file.name, ...check });
    else setRefused({ file: file.name, check });
  };
  const confirm = () => {
    const chosen = pending;
    setPending(null);
    if (chosen)
      void restore.run(() => api("POST /system/restore", { body: chosen.body }), t("sys.restored"));
  };
  const save = () => (forget(), download.run(downloadBackup, t("sys.backupSaved")));

  return (
    <Card title={t("sys.backupTitle")}>
      <p className="muted">{t("sys.backupHint")}</p>
      <div className="button-row">
        <button type="button" onClick={() => void save()} disabled={download.busy}>
          {t("sys.download")}
        </button>
        <label className="button">
          {t("sys.restore")}
          <input
            ref={input}
            type="file"
            accept="application/json,.json"
            className="sr-only"
            data-testid="restore-input"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) void choose(file);
            }}
          />
        </label>
      </div>
      {pending ? (
        <RestoreAsk
          pending={pending}
          onYes={confirm}
          onNo={() => (setPending(null), setCancelled(true))}
        />
      ) : null}
      <Alert text={refused ? refusal(refused.file, refused.check, t) : ""} />
      <Alert kind="info" text={cancelled ? t("sys.restoreCancelled") : ""} />
      <Alert text={download.error} />
      <Alert kind="ok" text={download.done} />
      <Alert text={restore.error ? t("sys.restoreFailed", { error: restore.error }) : ""} />
      <Alert kind="ok" text={restore.done} />
    </Card>
  );
}
