import { useState } from "react";
import { SubscriptionInput, type Subscription } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { formatBytes, formatDate, formatDateTime } from "../parts/format.js";
import { BRIEF_ERRORS, isDetailCode } from "../errors/brief-errors.js";
import { CoreOutput, coreFailure, coreOutputOf } from "../core/core-failure.js";
import { lastErrorText } from "../errors/errors-i18n.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import type { Lang } from "../../shared/lang.js";
import { Alert, Card, Loading, sayError, useLoad, type Say } from "../parts/ui.js";
import { EMPTY_SUBSCRIPTION, SubscriptionForm } from "./subscription-form.js";

interface Outcome {
  kind: "ok" | "error";
  /** Worded when shown, in the reader's language of the moment. */
  say: Say;
  /** The core's (or a YAML parser's) own words, shown folded apart from the sentence. */
  output?: string;
}

/** A failed refresh: the brief sentence by code inside `key`'s sentence, the core's words apart. */
function refreshFailure(err: unknown, say: (tr: Translate, error: string) => string): Outcome {
  return {
    kind: "error",
    say: (tr) => say(tr, coreFailure(err, tr).text),
    output: coreOutputOf(err),
  };
}

/** The kept last failure: another program's words (a `detail`) are folded apart, in English. */
function lastFailure(sub: Subscription, lang: Lang): { text: string; output: string } {
  const code = sub.lastErrorCode ?? "";
  const detail = sub.lastErrorParams?.detail;
  if (isDetailCode(code) && typeof detail === "string" && detail.trim())
    return { text: BRIEF_ERRORS[lang][code], output: detail };
  return { text: lastErrorText(sub, lang), output: "" };
}

function UsageBar({ sub }: { sub: Subscription }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const u = sub.usage;
  // A feed never read has said nothing yet, about its usage or anything else.
  if (!u) return sub.updatedAt ? <p className="muted">{t("subs.noUsage")}</p> : null;
  const used = u.upload + u.download;
  const pct = u.total > 0 ? Math.min(100, (used / u.total) * 100) : 0;
  return (
    <div className="usage">
      <div
        className={`bar${pct >= 90 ? " bar-bad" : ""}`}
        role="progressbar"
        aria-label={t("subs.usage")}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(pct)}
        aria-valuetext={t("subs.usageText", {
          used: formatBytes(used),
          total: u.total > 0 ? formatBytes(u.total) : "∞",
        })}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <span className="muted">
        {t("subs.usageText", {
          used: formatBytes(used),
          total: u.total > 0 ? formatBytes(u.total) : "∞",
        })}
        {u.expire ? ` · ${t("subs.expires", { date: formatDate(u.expire, lang) })}` : ""}
      </span>
    </div>
  );
}

/** Refresh, edit and delete of one subscription, and what the last of them came to. */
function useSubscriptionActions(sub: Subscription, onChanged: () => Promise<void>) {
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const refresh = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      await api("POST /subscriptions/:id/refresh", { params: { id: sub.id } });
      setOutcome({ kind: "ok", say: (tr) => tr("subs.refreshed") });
    } catch (err) {
      setOutcome(refreshFailure(err, (tr, error) => tr("subs.refreshFailed", { error })));
    }
    setBusy(false);
    await onChanged();
  };
  const remove = async () => {
    setBusy(true);
    try {
      await api("DELETE /subscriptions/:id", { params: { id: sub.id } });
      await onChanged();
    } catch (err) {
      setOutcome({ kind: "error", say: sayError(err) });
      setBusy(false);
    }
  };
  const save = async (input: SubscriptionInput) => {
    try {
      await api("PUT /subscriptions/:id", { params: { id: sub.id }, body: input });
      setEditing(false);
      setOutcome({ kind: "ok", say: (tr) => tr("subs.saved", { name: input.name }) });
      await onChanged();
      return null;
    } catch (err) {
      return sayError(err);
    }
  };
  return { editing, setEditing, busy, outcome, refresh, remove, save };
}

type Actions = ReturnType<typeof useSubscriptionActions>;

/** The name, its state badges, and the out-of-date hint. */
function ItemHead({ sub, refreshing }: { sub: Subscription; refreshing: boolean }) {
  const t = useT();
  const stale = sub.stale && sub.enabled;
  return (
    <>
      <div className="item-head">
        <h3>{sub.name}</h3>
        {!sub.enabled ? <span className="badge">{t("subs.disabled")}</span> : null}
        {refreshing ? (
          <span className="badge badge-info" role="status">
            {t("subs.refreshing")}
          </span>
        ) : null}
        {stale ? (
          <span
            className="badge badge-fair"
            title={t("subs.staleHint", { hours: sub.intervalHours * 2 })}
          >
            {t("subs.stale")}
          </span>
        ) : null}
      </div>
      {stale ? (
        <p className="muted" data-testid="stale-hint">
          {t("subs.staleHint", { hours: sub.intervalHours * 2 })}
        </p>
      ) : null}
    </>
  );
}

/** The kept last failure, and what the last action here came to. */
function ItemProblems({ sub, outcome }: { sub: Subscription; outcome: Outcome | null }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const last = sub.lastError ? lastFailure(sub, lang) : null;
  return (
    <>
      {last ? (
        <p className="alert alert-error">
          {t("subs.lastError", { error: last.text, when: formatDateTime(sub.attemptedAt, lang) })}
        </p>
      ) : null}
      {last && !outcome?.output ? <CoreOutput text={last.output} t={t} /> : null}
      {outcome ? <Alert kind={outcome.kind} text={outcome.say(t)} /> : null}
      {outcome ? <CoreOutput text={outcome.output ?? ""} t={t} /> : null}
    </>
  );
}

function ItemButtons({ actions, refreshing }: { actions: Actions; refreshing: boolean }) {
  const t = useT();
  const [confirming, setConfirming] = useState(false);
  const { busy, editing } = actions;
  return (
    <div className="button-row">
      <button type="button" onClick={() => void actions.refresh()} disabled={refreshing}>
        {t("subs.refresh")}
      </button>
      <button
        type="button"
        onClick={() => actions.setEditing(!editing)}
        aria-expanded={editing}
        disabled={busy}
      >
        {t("common.edit")}
      </button>
      {confirming ? (
        <>
          <button
            type="button"
            className="danger"
            onClick={() => void actions.remove()}
            disabled={busy}
          >
            {t("subs.confirmDelete")}
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            {t("common.cancel")}
          </button>
        </>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} disabled={busy}>
          {t("common.delete")}
        </button>
      )}
    </div>
  );
}

function SubscriptionItem({ sub, onChanged }: { sub: Subscription; onChanged(): Promise<void> }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const actions = useSubscriptionActions(sub, onChanged);
  const refreshing = actions.busy || sub.refreshing;
  return (
    <li className="item" aria-label={sub.name}>
      <ItemHead sub={sub} refreshing={refreshing} />
      <p className="url">{sub.url}</p>
      <p className="muted">
        {t("subs.meta", {
          nodes: sub.nodeCount,
          updated: formatDateTime(sub.updatedAt, lang),
          interval:
            sub.intervalHours === 0
              ? t("subs.manualOnly")
              : t("subs.everyHours", { hours: sub.intervalHours }),
        })}
      </p>
      <UsageBar sub={sub} />
      <ItemProblems sub={sub} outcome={actions.outcome} />
      <ItemButtons actions={actions} refreshing={refreshing} />
      {actions.editing ? (
        <SubscriptionForm
          initial={sub}
          submitLabel={t("common.save")}
          onCancel={() => actions.setEditing(false)}
          onSubmit={actions.save}
        />
      ) : null}
    </li>
  );
}

export function SubscriptionsScreen() {
  const t = useT();
  const list = useLoad(() => api("GET /subscriptions"), 5000);
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<Outcome | null>(null);

  const create = async (input: SubscriptionInput): Promise<Say | null> => {
    let id: string;
    try {
      id = (await api("POST /subscriptions", { body: input })).id;
    } catch (err) {
      return sayError(err);
    }
    setAdding(false);
    await list.reload();
    // Creating does not fetch; the console refreshes right away so nodes appear.
    setNotice({ kind: "ok", say: (tr) => tr("subs.createdRefreshing", { name: input.name }) });
    try {
      await api("POST /subscriptions/:id/refresh", { params: { id } });
      setNotice({ kind: "ok", say: (tr) => tr("subs.createdRefreshed", { name: input.name }) });
    } catch (err) {
      setNotice(
        refreshFailure(err, (tr, error) =>
          tr("subs.createdRefreshFailed", { name: input.name, error }),
        ),
      );
    }
    await list.reload();
    return null;
  };

  return (
    <Card
      title={t("subs.title")}
      actions={
        <button type="button" className="primary" onClick={() => setAdding(true)} disabled={adding}>
          {t("subs.add")}
        </button>
      }
    >
      {adding ? (
        <SubscriptionForm
          initial={EMPTY_SUBSCRIPTION}
          submitLabel={t("subs.create")}
          onSubmit={create}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      {notice ? <Alert kind={notice.kind} text={notice.say(t)} /> : null}
      {notice ? <CoreOutput text={notice.output ?? ""} t={t} /> : null}
      <Alert text={list.error} />
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && list.data.length === 0 ? <p className="muted">{t("subs.none")}</p> : null}
      <ul className="items">
        {list.data?.map((sub) => (
          <SubscriptionItem key={sub.id} sub={sub} onChanged={list.reload} />
        ))}
      </ul>
    </Card>
  );
}
