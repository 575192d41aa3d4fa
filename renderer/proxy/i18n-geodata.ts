/**
 * Words of the core's geodata (the System screen's card, the status line when a file is
 * missing) and of stale subscriptions, merged into the console's tables in i18n-en.ts and
 * i18n-zh.ts.
 */
export const geodataEn = {
  "geodata.title": "Rule data (geodata)",
  "geodata.hint":
    "The mainland rules (sites and addresses in China go direct) read two data files kept beside the proxy core. They come with Gatehouse; “Update geodata” downloads the current ones, checks each against its published checksum and with the core, and keeps the previous set.",
  "geodata.update": "Update geodata",
  "geodata.updated":
    "Geodata updated: {files}. A running core uses the new files from its next start.",
  "geodata.missing":
    "The proxy core cannot start: {files} missing. Use “Update geodata” on the System screen to download it.",
  "geodata.files": "Files",
  "geodata.none": "None yet",
  "subs.stale": "Out of date",
  "subs.staleHint":
    "No successful refresh for more than twice its interval ({hours} h): its nodes may no longer work.",
  "dash.staleSubs":
    "Out of date (no successful refresh for more than twice their interval): {names}",
} as const;

export const geodataZh: Record<keyof typeof geodataEn, string> = {
  "geodata.title": "规则数据（地理数据）",
  "geodata.hint":
    "大陆规则（国内网站和地址直连）需要读取放在代理内核旁的两个数据文件。Gatehouse 自带这两个文件；“更新地理数据”会下载最新版本，逐一核对公布的校验值并交给内核检查，同时保留上一组文件。",
  "geodata.update": "更新地理数据",
  "geodata.updated": "地理数据已更新：{files}。正在运行的内核在下次启动时使用新文件。",
  "geodata.missing": "代理内核无法启动：缺少 {files}。请在“系统”页面使用“更新地理数据”下载。",
  "geodata.files": "文件",
  "geodata.none": "暂无",
  "subs.stale": "已过期",
  "subs.staleHint": "超过两倍更新间隔（{hours} 小时）没有成功更新：其中的节点可能已无法使用。",
  "dash.staleSubs": "已过期（超过两倍更新间隔没有成功更新）：{names}",
};
