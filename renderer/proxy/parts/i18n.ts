/**
 * Words of every screen's common buttons and states, and the service's general errors, in English and Simplified Chinese; renderer/proxy/words.ts merges every
 * area's tables into the console's one.
 */
export const partsEn = {
  "common.loading": "Loading…",
  "common.working": "Working…",
  "common.retry": "Try again",
  "common.reload": "Reload",
  "common.cancel": "Cancel",
  "common.save": "Save",
  "common.edit": "Edit",
  "common.delete": "Delete",
  "common.listSep": ", ",
  "common.labelled": "{label}: {value}",
  "error.unreachable":
    "The proxy service cannot be reached. Check that it is running and that this device is on the same network.",
  "error.busy": "Too many requests at once, try again shortly.",
  "error.coreDown": "The proxy core is not reachable.",
  "error.coreNotRunning":
    "The proxy core is not running or cannot be reached. Start it on the Dashboard, or install it there first if it is not installed yet.",
  "error.unknown": "Something went wrong.",
} as const;

export const partsZh: Record<keyof typeof partsEn, string> = {
  "common.loading": "加载中…",
  "common.working": "处理中…",
  "common.retry": "重试",
  "common.reload": "刷新列表",
  "common.cancel": "取消",
  "common.save": "保存",
  "common.edit": "编辑",
  "common.delete": "删除",
  "common.listSep": "、",
  "common.labelled": "{label}：{value}",
  "error.unreachable": "无法连接代理服务。请确认服务正在运行，且本设备与网关在同一网络。",
  "error.busy": "同时进行的请求过多，请稍后再试。",
  "error.coreDown": "无法连接代理内核。",
  "error.coreNotRunning":
    "代理内核未运行或无法连接。请在“概览”中启动它；如果尚未安装，请先在那里安装。",
  "error.unknown": "出现未知错误。",
};
