import { useId, useState, type ReactNode } from "react";
import { formatDuration } from "../../shared/format.js";
import { sentenceGap } from "../../shared/lang.js";
import { useApp } from "../store.js";
import { useNow } from "./countdown.js";
import { Notice } from "./notice.js";

/**
 * The code and password forms the pickup page and the inbox page share: each page brings its
 * own words, the behaviour (grouping the code as typed, the 429 countdown on the button, what
 * the phone's keyboard offers) is one.
 */
export interface EntryWords {
  /** The button while the service is asked. */
  busy: string;
  /** The button while a 429 wait runs down, given the time left in words. */
  wait(time: string): string;
}

/** The submit button's text: busy, counting down a 429 wait, or its action. */
function SubmitLabel(props: {
  busy: boolean;
  blockedUntil: number;
  idle: string;
  words: EntryWords;
}) {
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  if (props.busy) return <>{props.words.busy}</>;
  if (props.blockedUntil > now)
    return <>{props.words.wait(formatDuration(props.blockedUntil - now, lang))}</>;
  return <>{props.idle}</>;
}

/** The form's submit button: off until the entry is ready, while asking and while a wait runs. */
function SubmitButton(props: {
  ready: boolean;
  busy: boolean;
  blockedUntil: number;
  submit: string;
  words: EntryWords;
}) {
  const now = useNow(1000);
  return (
    <button
      type="submit"
      className="primary big wide"
      disabled={!props.ready || props.busy || props.blockedUntil > now}
    >
      <SubmitLabel
        busy={props.busy}
        blockedUntil={props.blockedUntil}
        idle={props.submit}
        words={props.words}
      />
    </button>
  );
}

/**
 * A refusal, with the wait the service asked for when no button on screen counts it down
 * (the page passes `waitSeconds` only then): the wait is said once.
 */
export function ProblemNotice(props: {
  text: ReactNode;
  waitSeconds?: number;
  waitText(time: string): string;
  kind?: "error" | "info";
}) {
  const lang = useApp((s) => s.lang);
  const wait = props.waitSeconds ?? 0;
  return (
    <Notice kind={props.kind ?? "error"}>
      {props.text}
      {wait > 0 ? `${sentenceGap(lang)}${props.waitText(formatDuration(wait, lang))}` : ""}
    </Notice>
  );
}

export interface CodeEntryProps {
  initial: string;
  busy: boolean;
  blockedUntil: number;
  onSubmit(code: string): void;
}

/** A pickup-style code: letters grouped as typed, submitted once long enough. */
export function CodeEntryForm(
  props: CodeEntryProps & {
    lead?: string;
    label: string;
    hint: string;
    submit: string;
    placeholder?: string;
    words: EntryWords;
    code: {
      group(text: string): string;
      normalize(text: string): string;
      min: number;
      max: number;
    };
  },
) {
  const { code } = props;
  const [value, setValue] = useState(() => code.group(props.initial.slice(0, code.max)));
  const id = useId();
  const plain = code.normalize(value);
  const complete = plain.length >= code.min;
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (complete && !props.busy) props.onSubmit(plain);
      }}
    >
      {props.lead ? <p>{props.lead}</p> : null}
      <label htmlFor={id} className="big-label">
        {props.label}
      </label>
      <input
        id={id}
        className="code-input"
        value={value}
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="characters"
        spellCheck={false}
        enterKeyHint="go"
        aria-describedby={`${id}-hint`}
        placeholder={props.placeholder}
        onChange={(e) => setValue(code.group(code.normalize(e.target.value).slice(0, code.max)))}
      />
      <span id={`${id}-hint`} className="field-hint">
        {props.hint}
      </span>
      <SubmitButton {...props} ready={complete} />
    </form>
  );
}

export interface PasswordEntryProps {
  busy: boolean;
  blockedUntil: number;
  onSubmit(password: string): void;
  onOther(): void;
}

/** The password step after a code, with a way back to another code. */
export function PasswordEntryForm(
  props: PasswordEntryProps & {
    lead: string;
    label: string;
    submit: string;
    other: string;
    words: EntryWords;
  },
) {
  const [value, setValue] = useState("");
  const id = useId();
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value && !props.busy) props.onSubmit(value);
      }}
    >
      <p>{props.lead}</p>
      <label htmlFor={id} className="big-label">
        {props.label}
      </label>
      <input
        id={id}
        className="big-input"
        type="password"
        autoComplete="off"
        enterKeyHint="go"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <SubmitButton {...props} ready={value !== ""} />
      <button type="button" className="linkish other-code" onClick={props.onOther}>
        {props.other}
      </button>
    </form>
  );
}
