/**
 * Words of the core install (the dashboard's "no core" panel and the System screen's core
 * card), merged into the console's tables in i18n-en.ts and i18n-zh.ts.
 */
export const coreInstallEn = {
  "install.noCoreTitle": "No proxy core yet",
  "install.noCoreHint":
    "Gatehouse can download the mihomo proxy core from its official releases, check it against its published checksum, test it with your settings and start it.",
  "install.installAndStart": "Install the proxy core",
  "install.progressLabel": "Installing the proxy core",
  "install.phase.release": "Asking the release server for the latest version…",
  "install.phase.download": "Downloading…",
  "install.phase.downloadOf": "Downloading… {done} of {total} ({percent} %)",
  "install.phase.unpack": "Unpacking…",
  "install.phase.verify": "Checking the new core…",
  "install.phase.test": "Testing it with your settings…",
  "install.phase.swap": "Putting it in place…",
  "install.phase.restart": "Starting the new core…",
  "install.phase.start": "Starting the proxy core…",
  "install.installedStarted": "The proxy core {version} is installed and running.",
  "install.installed": "The proxy core {version} is installed.",
  "install.cardTitle": "Proxy core program",
  "install.version": "Version",
  "install.source": "Where it comes from",
  "install.source.configured": "Chosen with --core-bin",
  "install.source.installed": "Installed by Gatehouse",
  "install.source.bundled": "Shipped with Gatehouse",
  "install.source.path": "Found on this computer (PATH)",
  "install.source.none": "Not installed",
  "install.location": "Program file",
  "install.previous": "Previous version",
  "install.none": "None",
  "install.update": "Install the latest version",
  "install.install": "Install",
  "install.configuredHint":
    "This Gatehouse runs the core named with --core-bin; start it without that option to let Gatehouse install and update the core.",
  "install.updateHint":
    "A running core is restarted on the new version with your node choice; if it does not start, the version in use now is put back.",
  "install.rollback": "Go back to {version}",
  "install.rollbackAskLabel": "Go back to the previous core?",
  "install.rollbackAsk":
    "Go back to the previous core, {previous}? It replaces {current}, which is kept so you can return to it; a running core restarts.",
  "install.rollbackYes": "Go back",
  "install.rolledBack": "The proxy core {version} is back in use.",
  "install.rollbackCancelled": "Nothing was changed.",
} as const;

export const coreInstallZh: Record<keyof typeof coreInstallEn, string> = {
  "install.noCoreTitle": "尚未安装代理内核",
  "install.noCoreHint":
    "Gatehouse 可以从 mihomo 代理内核的官方发布页下载它，按公布的校验值核对、用你的设置测试后启动。",
  "install.installAndStart": "安装代理内核",
  "install.progressLabel": "正在安装代理内核",
  "install.phase.release": "正在向发布服务器查询最新版本…",
  "install.phase.download": "正在下载…",
  "install.phase.downloadOf": "正在下载… {done} / {total}（{percent}%）",
  "install.phase.unpack": "正在解压…",
  "install.phase.verify": "正在检查新内核…",
  "install.phase.test": "正在用你的设置测试…",
  "install.phase.swap": "正在替换…",
  "install.phase.restart": "正在启动新内核…",
  "install.phase.start": "正在启动代理内核…",
  "install.installedStarted": "代理内核 {version} 已安装并在运行。",
  "install.installed": "代理内核 {version} 已安装。",
  "install.cardTitle": "代理内核程序",
  "install.version": "版本",
  "install.source": "来源",
  "install.source.configured": "由 --core-bin 指定",
  "install.source.installed": "由 Gatehouse 安装",
  "install.source.bundled": "随 Gatehouse 附带",
  "install.source.path": "在本机的 PATH 中找到",
  "install.source.none": "未安装",
  "install.location": "程序文件",
  "install.previous": "上一个版本",
  "install.none": "无",
  "install.update": "安装最新版本",
  "install.install": "安装",
  "install.configuredHint":
    "此 Gatehouse 使用 --core-bin 指定的内核；不带该选项启动，即可由 Gatehouse 安装和更新内核。",
  "install.updateHint":
    "正在运行的内核会换用新版本重启，并保留你选择的节点；如果新版本无法启动，会换回现在使用的版本。",
  "install.rollback": "回退到 {version}",
  "install.rollbackAskLabel": "回退到上一个内核？",
  "install.rollbackAsk":
    "回退到上一个内核 {previous}？它将替换 {current}（{current} 会保留，之后可以再换回来）；正在运行的内核会重启。",
  "install.rollbackYes": "回退",
  "install.rolledBack": "已换回代理内核 {version}。",
  "install.rollbackCancelled": "没有做任何更改。",
};
