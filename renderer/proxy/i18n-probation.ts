/**
 * Words of the confirm-or-revert banner (a settings change that can cut the operator off waits
 * for confirmation), merged into the console's tables in i18n-en.ts and i18n-zh.ts.
 */
export const probationEn = {
  "probation.ask": "Keep these settings? They are undone in {seconds} s unless you confirm.",
  "probation.why":
    "This change can cut this console off from the gateway. If you can read this, keep it.",
  "probation.keep": "Keep",
  "probation.undo": "Undo now",
  "probation.undoing": "Undoing the change and restarting the core…",
  "probation.kept": "The new settings are kept.",
  "probation.undone": "The change was undone; the previous settings are back.",
  "probation.dismiss": "OK",
} as const;

export const probationZh: Record<keyof typeof probationEn, string> = {
  "probation.ask": "保留这些设置？如不确认，将在 {seconds} 秒后撤销。",
  "probation.why": "这项更改可能使本控制台无法再连接到网关。如果您能看到这条消息，请保留。",
  "probation.keep": "保留",
  "probation.undo": "立即撤销",
  "probation.undoing": "正在撤销更改并重新启动内核…",
  "probation.kept": "已保留新设置。",
  "probation.undone": "已撤销更改，之前的设置已恢复。",
  "probation.dismiss": "知道了",
};
