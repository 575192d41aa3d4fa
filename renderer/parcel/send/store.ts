import { create } from "zustand";
import { textFile } from "./text-file.js";
import { uniqueName } from "./picking.js";
import type {
  Cancelled,
  GetSend,
  Mode,
  Options,
  Phase,
  Picked,
  SendState,
  Session,
  SetSend,
  Upload,
  UploadState,
} from "./send-types.js";
import { createQueue } from "./upload-queue.js";
import {
  CLEARED,
  createEndActions,
  createRunningActions,
  createStartActions,
} from "./upload-actions.js";

export type { Cancelled, Mode, Options, Phase, Picked, Session, Upload, UploadState };

let nextKey = 1;

/** Choosing what to send: the mode, the files, the text, the options. */
function createPickActions(
  set: SetSend,
  get: GetSend,
): Pick<
  SendState,
  | "setMode"
  | "setText"
  | "toSend"
  | "addFiles"
  | "removeFile"
  | "clearFiles"
  | "initOptions"
  | "setOptions"
  | "dismissCancelled"
> {
  return {
    setMode(mode) {
      set({ mode, error: null });
    },
    setText(text) {
      set({ text, cancelled: null });
    },
    toSend() {
      const { mode, picked, text } = get();
      if (mode === "files") return picked;
      return text === "" ? [] : [{ key: `t${nextKey++}`, file: textFile(text), name: "" }];
    },

    addFiles(files, skippedFolders = 0) {
      const picked = [...get().picked];
      const taken = new Set(picked.map((p) => p.name.toLowerCase()));
      for (const file of files) {
        // The same file chosen twice is added once.
        const same = picked.some(
          (p) =>
            p.file.name === file.name &&
            p.file.size === file.size &&
            p.file.lastModified === file.lastModified,
        );
        if (same) continue;
        const name = uniqueName(file.name, taken);
        taken.add(name.toLowerCase());
        picked.push({ key: `f${nextKey++}`, file, name });
      }
      // Files dropped or pasted while the Text tab is open go to the files, shown at once.
      set({ picked, error: null, skippedFolders, mode: "files", cancelled: null });
    },
    removeFile(key) {
      set((s) => ({ picked: s.picked.filter((p) => p.key !== key) }));
    },
    clearFiles() {
      set({ picked: [] });
    },
    initOptions(policy) {
      if (get().options) return;
      set({
        options: {
          days: policy.default_days,
          downloads: policy.default_downloads,
          password: "",
          // The policy's default, the same one the service applies when `renew` is left out.
          renew: policy.default_renew,
        },
      });
    },
    setOptions(patch) {
      const options = get().options;
      if (options) set({ options: { ...options, ...patch } });
    },
    dismissCancelled() {
      set({ cancelled: null });
    },
  };
}

export const useSend = create<SendState>((set, get) => {
  const queue = createQueue(set, get);
  return {
    ...CLEARED,
    mode: "files",
    options: null,
    skippedFolders: 0,
    ...createPickActions(set, get),
    ...createStartActions(set, get, queue),
    ...createRunningActions(set, get, queue),
    ...createEndActions(set, get),
  };
});
