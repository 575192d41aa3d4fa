/**
 * Words the main process shows itself (tray, notifications, settings errors), in English and
 * Simplified Chinese: the few strings that never pass through a page, in their own table read
 * by the pages' one mechanism (server/contract/i18n.ts). Loaded by Node tests, so nothing here imports `electron`.
 */

import { translator as tableTranslator, type Lang, type Vars } from "../server/contract/i18n.js";

export type DesktopLanguage = Lang;
export type LanguageSetting = "system" | DesktopLanguage;

const en = {
  "app.name": "Gatehouse",
  "app.starting": "Starting Gatehouse…",
  "app.failed.config":
    "Gatehouse could not start its services: a setting is not valid. Check the ports and addresses in Settings.",
  "app.failed.data_dir":
    "Gatehouse could not start its services: its data folder cannot be used. Check the folder's permissions and free space.",
  "app.failed.port_in_use":
    "Gatehouse could not start its services: one of its ports is used by another program. Choose other ports in Settings or stop that program.",
  "app.failed.port_denied":
    "Gatehouse could not start its services: this user may not listen on one of its ports. Choose ports above 1023 in Settings.",
  "app.failed.start_failed": "Gatehouse could not start its services.",
  "app.failed.crashed":
    "Gatehouse's services stopped again and again, so they are not restarted any more.",
  "app.failed.ready_timeout": "Gatehouse's services did not finish starting in time.",
  "app.failed.details": "Technical details",
  "app.failed.retry": "Try again",
  "entries.unknown": "This computer has no network interface named {names} now.",

  "tray.services.starting": "Starting the services…",
  "tray.services.ready": "Services running",
  "tray.services.restarting": "The services stopped; restarting them…",
  "tray.services.failed": "The services could not start",
  "tray.core.online": "Proxy core running",
  "tray.core.offline": "Proxy core stopped",
  "tray.core.notInstalled": "Proxy core not installed",
  "tray.core.waiting": "Proxy core: waiting for the services",
  "tray.node": "Node: {node}",
  "tray.noNode": "No node selected",
  "tray.lan": "LAN addresses",
  "tray.lan.none": "No LAN address (connect this computer to a network)",
  "tray.lan.noneChosen": "No LAN address chosen (see Settings)",
  "tray.lan.missing": "{address} is not connected now",
  "tray.lan.copy": "Copy address",
  "tray.lan.qr": "Show QR code",
  "tray.open.window": "Open Gatehouse",
  "tray.open.send": "Send",
  "tray.open.mine": "My parcels",
  "tray.open.admin": "Parcel admin",
  "tray.open.proxy": "Proxy console",
  "tray.open.settings": "Settings…",
  "tray.core.start": "Start proxy core",
  "tray.core.stop": "Stop proxy core",
  "tray.core.restart": "Restart proxy core",
  "tray.quit": "Quit Gatehouse",
  "tray.tooltip.node": "{core} ({node})",

  "notify.pickedUp.title": "Parcel picked up",
  "notify.pickedUp.file": "{file} was picked up by {from} at {time}.",
  "notify.pickedUp.zipOne": "The parcel was picked up as a ZIP by {from} at {time}.",
  "notify.pickedUp.zipMany": "All {count} files were picked up as one ZIP by {from} at {time}.",
  "notify.pickedUp.parcel": "The parcel was picked up by {from} at {time}.",
  "notify.unknownAddress": "an unknown address",
  "notify.uploaded.title": "Upload finished",
  "notify.uploaded.one": "{file} finished uploading at {time} and can be picked up now.",
  "notify.uploaded.many": "{count} files finished uploading at {time} and can be picked up now.",
  "notify.uploaded.none": "The upload finished at {time}.",
  "notify.inbox.title": "Received from {from}",
  "notify.inbox.one": "{file} is saved in {folder}.",
  "notify.inbox.many": "{count} files are saved in {folder}: {names}.",
  "notify.inbox.more": "{names} and {count} more",
  "tray.inbox.open": "Inbox open until {time}",
  "tray.inbox.closed": "Inbox closed",
  "tray.inbox.openHour": "Open the inbox for an hour",
  "tray.inbox.close": "Close the inbox",
  "tray.inbox.show": "Show the inbox QR code…",

  "settings.field.language": "Language",
  "settings.field.theme": "Theme",
  "settings.field.parcelPort": "Parcel port",
  "settings.field.lanName": "LAN name",
  "settings.field.httpsEnabled": "HTTPS",
  "settings.field.parcelHttpsPort": "Parcel HTTPS port",
  "settings.field.proxyPort": "Proxy console port",
  "settings.field.host": "Listen address",
  "settings.field.entries": "LAN addresses",
  "settings.field.startAtLogin": "Start at login",
  "settings.field.closeToTray": "Close to tray",
  "settings.field.startMinimized": "Start minimised",
  "settings.field.coreBinary": "Proxy core program",
  "settings.field.coreServiceMode": "Proxy core service mode",
  "settings.field.coreUnit": "Proxy core systemd unit",
  "settings.field.window": "Window size and position",
  "settings.field.inboxFolder": "Folder for received files",
  "settings.repaired":
    "Some settings could not be read and are back to their defaults: {fields}. The file as it was is kept beside it as {file}.",
  "settings.cleared":
    "The settings file could not be read, so every setting is back to its default. The file as it was is kept beside it as {file}.",
  "settings.error.port_range": "{field} must be a whole number from 1 to 65535.",
  "settings.error.port_clash": "{field} is the same as {other}; choose another port.",
  "settings.error.port_core": "{field} cannot be {port}: the proxy core uses that port itself.",
  "settings.error.host_ip": "{field} must be an IP address such as 0.0.0.0 or 192.168.1.20.",
  "settings.error.entries":
    "{field} must be “all” or a list of up to {count} interface names or IPv4 addresses.",
  "settings.error.path_absolute": "{field} must be a full path, such as /usr/local/bin/mihomo.",
  "settings.error.folder_absolute":
    "{field} must be a full path of a folder, such as /home/me/Downloads.",
  "settings.error.unit_name": "{field} must be a systemd unit name ending in .service.",
  "settings.error.choice": "{field} has a value that is not one of its choices.",
  "settings.error.boolean": "{field} must be on or off.",
  "settings.error.unknown": "{field} is not a setting of this app.",
  "settings.error.not_object": "The settings change must be a set of named values.",
} as const;

export type DesktopKey = keyof typeof en;

const zh: Record<DesktopKey, string> = {
  "app.name": "Gatehouse",
  "app.starting": "正在启动 Gatehouse…",
  "app.failed.config": "Gatehouse 无法启动其服务：有一项设置无效。请在“设置”中检查端口和地址。",
  "app.failed.data_dir":
    "Gatehouse 无法启动其服务：无法使用其数据文件夹。请检查该文件夹的权限和剩余空间。",
  "app.failed.port_in_use":
    "Gatehouse 无法启动其服务：它的某个端口已被其他程序占用。请在“设置”中换用其他端口，或关闭那个程序。",
  "app.failed.port_denied":
    "Gatehouse 无法启动其服务：当前用户无权监听它的某个端口。请在“设置”中选择大于 1023 的端口。",
  "app.failed.start_failed": "Gatehouse 无法启动其服务。",
  "app.failed.crashed": "Gatehouse 的服务反复停止，因此不再自动重启。",
  "app.failed.ready_timeout": "Gatehouse 的服务未能按时完成启动。",
  "app.failed.details": "技术细节",
  "app.failed.retry": "重试",
  "entries.unknown": "这台电脑现在没有名为 {names} 的网络接口。",

  "tray.services.starting": "正在启动服务…",
  "tray.services.ready": "服务运行中",
  "tray.services.restarting": "服务已停止，正在重新启动…",
  "tray.services.failed": "服务未能启动",
  "tray.core.online": "代理内核运行中",
  "tray.core.offline": "代理内核已停止",
  "tray.core.notInstalled": "未安装代理内核",
  "tray.core.waiting": "代理内核：等待服务启动",
  "tray.node": "节点：{node}",
  "tray.noNode": "未选择节点",
  "tray.lan": "局域网地址",
  "tray.lan.none": "没有局域网地址（请把这台电脑连接到网络）",
  "tray.lan.noneChosen": "未选择局域网地址（见“设置”）",
  "tray.lan.missing": "{address} 目前未连接",
  "tray.lan.copy": "复制地址",
  "tray.lan.qr": "显示二维码",
  "tray.open.window": "打开 Gatehouse",
  "tray.open.send": "发送",
  "tray.open.mine": "我的包裹",
  "tray.open.admin": "包裹管理",
  "tray.open.proxy": "代理控制台",
  "tray.open.settings": "设置…",
  "tray.core.start": "启动代理内核",
  "tray.core.stop": "停止代理内核",
  "tray.core.restart": "重启代理内核",
  "tray.quit": "退出 Gatehouse",
  "tray.tooltip.node": "{core}（{node}）",

  "notify.pickedUp.title": "包裹已被取走",
  "notify.pickedUp.file": "{file} 已于 {time} 被 {from} 取走。",
  "notify.pickedUp.zipOne": "包裹已于 {time} 被 {from} 以 ZIP 压缩包取走。",
  "notify.pickedUp.zipMany": "全部 {count} 个文件已于 {time} 被 {from} 打包成一个 ZIP 取走。",
  "notify.pickedUp.parcel": "包裹已于 {time} 被 {from} 取走。",
  "notify.unknownAddress": "未知地址",
  "notify.uploaded.title": "上传完成",
  "notify.uploaded.one": "{file} 已于 {time} 上传完成，现在可以取件。",
  "notify.uploaded.many": "{count} 个文件已于 {time} 上传完成，现在可以取件。",
  "notify.uploaded.none": "上传已于 {time} 完成。",
  "notify.inbox.title": "收到来自 {from} 的文件",
  "notify.inbox.one": "{file} 已保存到 {folder}。",
  "notify.inbox.many": "{count} 个文件已保存到 {folder}：{names}。",
  "notify.inbox.more": "{names}，以及另外 {count} 个",
  "tray.inbox.open": "收件箱开放至 {time}",
  "tray.inbox.closed": "收件箱已关闭",
  "tray.inbox.openHour": "打开收件箱一小时",
  "tray.inbox.close": "关闭收件箱",
  "tray.inbox.show": "显示收件箱二维码…",

  "settings.field.language": "语言",
  "settings.field.theme": "主题",
  "settings.field.parcelPort": "包裹服务端口",
  "settings.field.lanName": "局域网名称",
  "settings.field.httpsEnabled": "HTTPS",
  "settings.field.parcelHttpsPort": "包裹服务 HTTPS 端口",
  "settings.field.proxyPort": "代理控制台端口",
  "settings.field.host": "监听地址",
  "settings.field.entries": "局域网地址",
  "settings.field.startAtLogin": "登录时启动",
  "settings.field.closeToTray": "关闭时最小化到托盘",
  "settings.field.startMinimized": "启动时最小化",
  "settings.field.coreBinary": "代理内核程序",
  "settings.field.coreServiceMode": "代理内核运行方式",
  "settings.field.coreUnit": "代理内核 systemd 单元",
  "settings.field.window": "窗口大小和位置",
  "settings.field.inboxFolder": "接收文件的文件夹",
  "settings.repaired":
    "有些设置无法读取，已恢复为默认值：{fields}。原来的文件保存在旁边，名为 {file}。",
  "settings.cleared":
    "无法读取设置文件，所有设置都已恢复为默认值。原来的文件保存在旁边，名为 {file}。",
  "settings.error.port_range": "{field}必须是 1 到 65535 之间的整数。",
  "settings.error.port_clash": "{field}与{other}相同，请换一个端口。",
  "settings.error.port_core": "{field}不能是 {port}：代理内核自己使用这个端口。",
  "settings.error.host_ip": "{field}必须是 IP 地址，例如 0.0.0.0 或 192.168.1.20。",
  "settings.error.entries": "{field}必须是“全部”，或最多 {count} 个网络接口名称或 IPv4 地址。",
  "settings.error.path_absolute": "{field}必须是完整路径，例如 /usr/local/bin/mihomo。",
  "settings.error.folder_absolute": "{field}必须是文件夹的完整路径。",
  "settings.error.unit_name": "{field}必须是以 .service 结尾的 systemd 单元名。",
  "settings.error.choice": "{field}的值不在可选范围内。",
  "settings.error.boolean": "{field}只能是开或关。",
  "settings.error.unknown": "{field}不是本应用的设置项。",
  "settings.error.not_object": "设置的修改必须是一组带名称的值。",
};

export const DESKTOP_STRINGS: Record<DesktopLanguage, Record<DesktopKey, string>> = {
  en,
  "zh-CN": zh,
};

export type Translate = (key: DesktopKey, vars?: Vars) => string;

/** The words of one language, through the same mechanism as the pages' tables. */
export function translator(lang: DesktopLanguage): Translate {
  return tableTranslator(DESKTOP_STRINGS, lang);
}

/**
 * The language the app speaks: the setting, or for "system" the OS locale (any Chinese
 * locale gets the Simplified Chinese words, the only Chinese the app has; anything else English).
 */
export function resolveLanguage(setting: LanguageSetting, systemLocale: string): DesktopLanguage {
  if (setting !== "system") return setting;
  return /^zh\b/i.test(systemLocale) ? "zh-CN" : "en";
}
